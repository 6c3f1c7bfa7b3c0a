/**
 * Lines, and ends of lines, that some kinds of Mermaid diagram do not draw (docs/security.md,
 * "Text nobody saw"), from their grammars (mermaid's diagrams/<kind>/parser/*.jison). Each is
 * cut wider than the grammar reads it, never narrower: dropping a word a person saw is the
 * safe side.
 */

import type { DiagramKind } from './mermaid-kind.js';
import type { Cut } from './text-cuts.js';

/** A `#` comment to the line's end (sequence, state, requirement, timeline, journey). */
const HASH_COMMENT = /#[^\n]*/g;
/**
 * The lexer's `.*direction\s+TB[^\n]*` takes all its line as a direction, labels included
 * (flowchart, class, state, C4).
 */
const DIRECTION = /^.*direction\s+(?:TB|BT|RL|LR|TD)[^\n]*/gim;
/**
 * A mindmap's or kanban board's node id, which a shape after it replaces with its text. It starts
 * at a non-space, so the indent and the id cannot trade spaces: a long line of them would cost
 * quadratic time.
 */
const NODE_ID = /^[^\S\n]*(?!::icon\(|:::)([^([\n){}\s][^([\n){}]*)(?=[([){])/gm;

const HASH_COMMENTS: ReadonlySet<DiagramKind> = new Set(['sequence', 'state', 'hash-comments']);
const DIRECTIONS: ReadonlySet<DiagramKind> = new Set(['flowchart', 'class', 'state', 'c4']);
const NODE_IDS: ReadonlySet<DiagramKind> = new Set(['mindmap', 'kanban']);

/** The cuts of such lines in `read` (the diagram without its comments), for its kind. */
export function lineCuts(read: string, kind: DiagramKind): Cut[] {
  const cuts: Cut[] = [];
  const add = (pattern: RegExp, group = 0) => {
    for (const match of read.matchAll(pattern)) {
      const start = match.index + match[0].length - match[group]!.length;
      cuts.push({ start, end: start + match[group]!.length });
    }
  };
  if (HASH_COMMENTS.has(kind)) add(HASH_COMMENT);
  if (DIRECTIONS.has(kind)) add(DIRECTION);
  if (NODE_IDS.has(kind)) add(NODE_ID, 1);
  return cuts;
}
