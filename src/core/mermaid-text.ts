/**
 * What a Mermaid diagram holds but does not draw (docs/security.md, "Text nobody saw"): comments
 * (`%%` to the end of the line), directives (`%%{…}%%`, over lines if they run on) and the
 * diagram's accessible title and description (`accTitle: …`, `accDescr: …`, `accDescr { … }`),
 * which only a screen reader reads. Mermaid's own preprocessing drops comments and directives
 * before it parses (mermaid's diagram-api/comments.ts and directives); a `%%` in a quoted label
 * is drawn, and is left out all the same. So is the front matter, a YAML block between `---`
 * lines that opens the diagram (mermaid's `frontMatterRegex`, diagram-api/regexes.ts): its
 * `config` is never drawn, and its `title`, which is, goes with it.
 */

import { drawnBlocks } from './drawn-blocks.js';
import { lineStarts } from './markdown-prefix.js';
import type { Cut } from './text-cuts.js';

const COMMENT = /%%/g;
const ACCESSIBLE = /^[\s>*+-]*acc(?:Title|Descr)\s*:/;
const ACCESSIBLE_BLOCK = /^[\s>*+-]*accDescr\s*\{/;

/** The spans of the text's Mermaid diagrams that are not drawn. */
export function mermaidCuts(text: string): Cut[] {
  const lines = text.split('\n');
  const starts = lineStarts(text);
  return drawnBlocks(lines, 'mermaid').flatMap(({ open, close }) => {
    const start = starts[open + 1] ?? text.length;
    const end = close < lines.length ? starts[close]! - 1 : text.length;
    if (start >= end) return [];
    const body = text.slice(start, end);
    return [...frontMatterSpan(body), ...commentSpans(body), ...accessibleSpans(body)].map(
      ([from, to]) => ({
        start: start + from,
        end: start + to,
      }),
    );
  });
}

/**
 * Mermaid's front matter: `---` (after spaces, which the closing line repeats) at the diagram's
 * very start, to the next such line; one that never closes is no front matter to Mermaid.
 */
const FRONT_MATTER = /^([^\S\n]*)-{3}[^\S\n]*\n[\s\S]*?\n\1-{3}[^\S\n]*(?=\n|$)/;

function frontMatterSpan(body: string): Array<[number, number]> {
  const match = FRONT_MATTER.exec(body);
  return match ? [[0, match[0].length]] : [];
}

/** Comments, to their line's end, and directives, to their `}%%` or the diagram's end. */
function commentSpans(body: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let cursor = 0;
  for (const { index } of body.matchAll(COMMENT)) {
    if (index < cursor) continue;
    const directive = body[index + 2] === '{';
    const end = directive ? body.indexOf('}%%', index + 3) : body.indexOf('\n', index);
    cursor = end < 0 ? body.length : directive ? end + 3 : end;
    spans.push([index, cursor]);
  }
  return spans;
}

/** Accessible titles and descriptions: to the line's end, or to a description block's `}`. */
function accessibleSpans(body: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let offset = 0;
  let inBlock = false;
  for (const line of body.split('\n')) {
    const shut = line.indexOf('}', inBlock ? 0 : line.indexOf('{') + 1);
    if (inBlock || ACCESSIBLE_BLOCK.test(line)) {
      spans.push([offset, offset + (shut < 0 ? line.length : shut)]);
      inBlock = shut < 0;
    } else if (ACCESSIBLE.test(line)) spans.push([offset, offset + line.length]);
    offset += line.length + 1;
  }
  return spans;
}
