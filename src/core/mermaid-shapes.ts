/**
 * A flowchart's shapes as Mermaid's lexer reads them (mermaid's
 * diagrams/flowchart/parser/flow.jison), for mermaid-flowchart.ts: a shape's text runs from its
 * opening to the first character that would end the lexer's text state, strings skipped, and
 * must meet its closing there, else the diagram does not read and is left out whole. A node's
 * properties (`[|props|text]`) and what its `@{…}` holds but its label are never drawn.
 */

import type { Cut } from './text-cuts.js';

/** What the flowchart reader makes of a stretch of the diagram. */
export type Piece =
  | { kind: 'id' | 'gap'; start: number; end: number }
  /** Never drawn; a subgraph's id, which links may name, is cut wherever it stands. */
  | { kind: 'hidden'; start: number; end: number; id?: string }
  /** A shape's text, from its opening at `start` to its closing's end at `end`. */
  | { kind: 'label'; start: number; end: number; text: Cut }
  | { kind: 'data'; start: number; end: number; label?: Cut };

/** Shapes, longest opening first, with how each closes; `|` opens an edge's text. */
export const SHAPES: ReadonlyArray<readonly [opening: string, closing: readonly string[]]> = [
  ['(((', [')))']],
  ['(-', ['-)', '/)', '))']],
  ['([', ['])']],
  ['[[', [']]']],
  ['[|', [']']],
  ['[(', [')]']],
  ['[/', ['/]', '\\]']],
  ['[\\', ['\\]', '/]']],
  ['((', ['))']],
  ['{{', ['}}']],
  ['>', [']']],
  ['[', [']']],
  ['(', [')']],
  ['{', ['}']],
  ['|', ['|']],
];
const TEXT_END = /["[\](){}|]/g;
const TRAPEZOID_TEXT_END = /["[\](){}|]|[/\\](?=\])/g;
const ELLIPSE_TEXT_END = /["[\](){}|]|[-/)](?=\))/g;
const LABEL_KEY = /["']?label["']?\s*:[^\S\n]*/y;
const LABEL_VALUE = /"[^"]*"|'(?:[^'}]|'')*'|[^,\n}]*/y;

/** The match of a sticky (`y`) pattern at `at`. */
export function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** Where the string opened at `at` ends (past its quote), a Markdown string's "`…`" too. */
export function stringEnd(read: string, at: number): number | undefined {
  const markdown = read.startsWith('"`', at);
  const close = read.indexOf(markdown ? '`"' : '"', at + (markdown ? 2 : 1));
  return close < 0 ? undefined : close + (markdown ? 2 : 1);
}

/** The shape's text, to its closing, strings skipped: `[|props|text]` hides its props. */
export function readLabel(
  read: string,
  at: number,
  opening: string,
  closing: readonly string[],
  pieces: Piece[],
): number | undefined {
  let start = at + opening.length;
  if (opening === '[|') {
    const props = read.indexOf('|', start);
    if (props < 0) return undefined;
    pieces.push({ kind: 'hidden', start, end: props });
    start = props + 1;
  }
  const ends =
    opening === '(-' ? ELLIPSE_TEXT_END : /^\[[/\\]$/.test(opening) ? TRAPEZOID_TEXT_END : TEXT_END;
  let end = start;
  for (;;) {
    ends.lastIndex = end;
    const found = ends.exec(read);
    if (!found) return undefined;
    end = found.index;
    if (found[0] !== '"') break;
    const past = stringEnd(read, end);
    if (past === undefined) return undefined;
    end = past;
  }
  const close = closing.find((candidate) => read.startsWith(candidate, end));
  if (close === undefined) return undefined;
  // An edge's text (`|…|`) labels no node.
  if (opening === '|') pieces.push({ kind: 'gap', start: at, end: end + close.length });
  else pieces.push({ kind: 'label', start: at, end: end + close.length, text: { start, end } });
  return end + close.length;
}

/** A node's `@{…}`: its label is drawn, the rest is not. */
export function readShapeData(read: string, at: number, pieces: Piece[]): number | undefined {
  let end = at + 2;
  let label: Cut | undefined;
  while (end < read.length && read[end] !== '}') {
    if (read[end] === '"') {
      const past = stringEnd(read, end);
      if (past === undefined) return undefined;
      end = past;
      continue;
    }
    const key = /[\s,{]/.test(read[end - 1]!) ? matchAt(LABEL_KEY, read, end) : null;
    if (key && label === undefined) {
      const start = end + key[0].length;
      label = { start, end: start + matchAt(LABEL_VALUE, read, start)![0].length };
      end = label.end;
      continue;
    }
    end++;
  }
  if (end >= read.length) return undefined;
  pieces.push({ kind: 'data', start: at, end: end + 1, ...(label ? { label } : {}) });
  return end + 1;
}
