// Everything rendered from task titles, ids, errors and notes is untrusted: planner output and
// issue text end up here. These helpers make sure such text stays text in its medium.
import { flattenLine, inertInline, neutraliseHtmlComments } from '../inert-markdown.js';

/** Cuts to at most `max` code points (never splitting a surrogate pair), marking the cut. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/**
 * One table cell's worth of text that renders as written: no cell breaks (`|`, newlines), no
 * code spans, HTML, links, references, mentions or formatting (see inertInline).
 */
export function escapeMarkdownCell(text: string): string {
  return inertInline(text);
}

const MERMAID_NAMED: Readonly<Record<string, string>> = {
  '"': '#quot;',
  '<': '#lt;',
  '>': '#gt;',
  '&': '#amp;',
};
// Letters, digits, spaces and punctuation that mean nothing inside a quoted Mermaid label.
// `#` is not here: Mermaid reads `#name;` as an entity. `%` is not: `%%{init}%%` directives
// are recognised anywhere in the text. `>` and `"` are not: `-->` edges and quote breakouts.
// `:` is not: before parsing, Mermaid drops the last `;` of any line matching
// `style.*:\S*#.*;` (so `style x fill:#f00;` lost a character of its `#35;`), and after it
// turns `fa:fa-car` into an icon; with no literal `:` neither can happen.
const MERMAID_SAFE = /^[\p{L}\p{N} _.,;/()+?!'@=*-]$/u;
// Mermaid marks its entities with these pairs and replaces them in the finished SVG, even
// when they came from an entity: `ﬂ°` becomes `&`, `¶ß` becomes `;`. An invisible word
// joiner between the two keeps such text as written.
const MERMAID_SENTINEL_PAIRS = new Set(['\ufb02\u00b0', '\u00b6\u00df']);
const WORD_JOINER_ENTITY = '#8288;';

/**
 * A quoted Mermaid node label, e.g. `"task_001#58; Say #quot;hi#quot;"`. Anything outside a
 * small safe set becomes a Mermaid entity (`#quot;`, `#lt;`, `#96;`), which Mermaid turns into
 * text, never into markup or syntax. Whitespace runs collapse; long text is cut.
 */
export function mermaidLabel(text: string, maxLength = 100): string {
  const flat = Array.from(truncate(flattenLine(text).replace(/ {2,}/g, ' ').trim(), maxLength));
  let out = '';
  flat.forEach((c, i) => {
    out += MERMAID_SAFE.test(c) ? c : (MERMAID_NAMED[c] ?? `#${c.codePointAt(0)};`);
    if (MERMAID_SENTINEL_PAIRS.has(c + (flat[i + 1] ?? ''))) out += WORD_JOINER_ENTITY;
  });
  return `"${out}"`;
}

/**
 * Trusted-shape markdown that may quote untrusted text (plan errors, notes): no HTML comment
 * may open (it could hide the rest or fake our marker), and a code fence left open is closed
 * so that it cannot swallow the rest of the comment.
 */
export function sanitizeMarkdownBlock(markdown: string): string {
  return closeOpenFence(neutraliseHtmlComments(markdown.replace(/\r\n?/g, '\n')));
}

function closeOpenFence(markdown: string): string {
  let open: string | undefined;
  for (const line of markdown.split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (!fence) continue;
    if (open === undefined) open = fence;
    else if (fence[0] === open[0] && fence.length >= open.length && line.trim() === fence) {
      open = undefined;
    }
  }
  return open === undefined ? markdown : `${markdown}\n${open}`;
}
