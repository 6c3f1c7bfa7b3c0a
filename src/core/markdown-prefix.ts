/**
 * Where a line of an issue's markdown may hold a block's first character, for the readers of
 * hidden text (visible-text.ts and the modules it uses), which look at a line's text after any
 * container that may stand before it rather than follow the containers themselves.
 */

/**
 * What may come before a block's first character on its line: indentation and containers (a
 * quote's `>`, a list item's marker), and a byte order mark, which cmark-gfm skips at the start
 * of the text.
 */
const CONTAINER_PREFIX = /^\ufeff?(?:[ \t>]|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t]))*/;

export const BLANK_LINE = /^[ \t]*$/;

/** The length of what may stand before the line's first block (CONTAINER_PREFIX). */
export function prefixLength(line: string): number {
  return CONTAINER_PREFIX.exec(line)![0].length;
}

/** The line's text after what may stand before its first block. */
export function afterPrefix(line: string): string {
  return line.slice(prefixLength(line));
}

/** The offset in `text` at which each of its lines (split at line feeds) starts. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The text's paragraphs: its spans between blank lines, each from a line's start to its end. */
export function paragraphsOf(text: string): Array<{ start: number; end: number }> {
  const paragraphs: Array<{ start: number; end: number }> = [];
  let start: number | undefined;
  let at = 0;
  for (const line of text.split('\n')) {
    if (BLANK_LINE.test(line)) {
      if (start !== undefined) paragraphs.push({ start, end: at - 1 });
      start = undefined;
    } else start ??= at;
    at += line.length + 1;
  }
  if (start !== undefined) paragraphs.push({ start, end: text.length });
  return paragraphs;
}
