/**
 * What a Mermaid diagram holds but does not draw (docs/security.md, "Text nobody saw"). A diagram
 * that may restyle its text, or show some of it only on hover (a directive, a front matter, a
 * `style`, `classDef`, `class`, `:::`, `click`, HTML in a label …: mermaid-whole.ts), is left out
 * whole: which labels a style hides is not worked out, and losing a diagram a person saw is the
 * safe side.
 * Of the others, comments (`%%` to the end of the line, which Mermaid's preprocessing drops:
 * mermaid's diagram-api/comments.ts), the accessible title and description (`accTitle: …`,
 * `accDescr: …`, `accDescr { … }`, which only a screen reader reads), the ids a label hides and
 * the lines some kinds do not draw are cut: a flowchart's (mermaid-flowchart.ts), a sequence
 * diagram's (mermaid-sequence.ts), and the `#` comments, direction lines and node ids of other
 * kinds (mermaid-lines.ts). A `%%` in a quoted label is drawn, and is left out all the same.
 * A diagram in a quote or a list item is read without the containers' marks, as GitHub gives it
 * to Mermaid.
 */

import { drawnBlocks } from './drawn-blocks.js';
import { flowchartCuts } from './mermaid-flowchart.js';
import { lineCuts } from './mermaid-lines.js';
import { diagramKind } from './mermaid-kind.js';
import { leftOutWhole } from './mermaid-whole.js';
import { sequenceCuts } from './mermaid-sequence.js';
import { lineStarts, prefixLength } from './markdown-prefix.js';
import type { Cut } from './text-cuts.js';

const COMMENT = /%%[^\n]*/g;
const ACCESSIBLE = /(?:^|[;}])[^\S\n]*(acc(?:Title|Descr)\s*:[^\n]*|accDescr\s*\{[^}]*)/gm;

/** The spans of the text's Mermaid diagrams that are not drawn. */
export function mermaidCuts(text: string): Cut[] {
  const lines = text.split('\n');
  const starts = lineStarts(text);
  return drawnBlocks(lines, 'mermaid').flatMap(({ open, close }) => {
    const start = starts[open + 1] ?? text.length;
    const end = close < lines.length ? starts[close]! - 1 : text.length;
    if (start >= end) return [];
    return hiddenInDiagram(text.slice(start, end)).map((cut) => ({
      start: start + cut.start,
      end: start + cut.end,
    }));
  });
}

/** The cuts of a diagram's text, the lines between its fences. */
function hiddenInDiagram(written: string): Cut[] {
  const body = withoutPrefixes(written);
  const whole = [{ start: 0, end: body.length }];
  const undrawn = [...commentCuts(body), ...accessibleCuts(body)];
  const read = blanked(body, undrawn);
  const kind = diagramKind(read);
  if (leftOutWhole(body, read, kind)) return whole;
  const lines = lineCuts(read, kind);
  const rest = blanked(read, lines);
  const own =
    kind === 'flowchart' ? flowchartCuts(rest) : kind === 'sequence' ? sequenceCuts(rest) : [];
  return own === undefined ? whole : [...undrawn, ...lines, ...own];
}

/** The lines with what may be a container's marks (a quote's `>`) as spaces: offsets kept. */
function withoutPrefixes(written: string): string {
  return written
    .split('\n')
    .map((line) => {
      const prefix = prefixLength(line);
      return ' '.repeat(prefix) + line.slice(prefix);
    })
    .join('\n');
}

/** The text with the cuts' characters but line breaks as spaces: offsets kept. */
function blanked(text: string, cuts: readonly Cut[]): string {
  const kept = text.split('');
  for (const { start, end } of cuts)
    for (let at = start; at < end; at++) if (kept[at] !== '\n') kept[at] = ' ';
  return kept.join('');
}

/** Comments, to their line's end. */
function commentCuts(body: string): Cut[] {
  return [...body.matchAll(COMMENT)].map((match) => ({
    start: match.index,
    end: match.index + match[0].length,
  }));
}

/**
 * Accessible titles and descriptions, at a statement's start (a line's, or after `;` or `}`):
 * to the line's end, or to a description block's `}`.
 */
function accessibleCuts(body: string): Cut[] {
  return [...body.matchAll(ACCESSIBLE)].map((match) => {
    const start = match.index + match[0].length - match[1]!.length;
    return { start, end: start + match[1]!.length };
  });
}
