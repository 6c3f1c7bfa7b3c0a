/**
 * CommonMark's indentation and code fences as GitHub's cmark-gfm reads them (its
 * src/scanners.re): indentation is spaces and tabs only, a tab reaching the next multiple of four
 * columns; a fence is three or more backticks (with no backtick after them on the line) or
 * tildes, indented by fewer than four columns; it closes on a line of at least as many of the
 * same character, so indented, followed by spaces and tabs only. Shared by the readers of
 * comments (commands/markdown-lines.ts) and of issues (code-blocks.ts).
 */

export type Fence = { kind: 'fence'; marker: '`' | '~'; length: number };

/** The columns of indentation from which a line is an indented code block's. */
export const CODE_INDENT = 4;

const INDENTATION = /^[ \t]*/;
const SPACES_AND_TABS = /^[ \t]*$/;

/** The columns of a line's leading spaces and tabs, counted up to `upTo`. */
export function indentColumns(line: string, upTo = CODE_INDENT): number {
  let columns = 0;
  for (const char of line) {
    if (columns >= upTo) break;
    if (char === ' ') columns++;
    else if (char === '\t') columns += CODE_INDENT - (columns % CODE_INDENT);
    else break;
  }
  return columns;
}

/** The line from its first character that is neither a space nor a tab. */
export function unindented(line: string): string {
  return line.slice(INDENTATION.exec(line)![0].length);
}

function runLength(text: string, from: number, char: string): number {
  let end = from;
  while (text[end] === char) end++;
  return end - from;
}

/** The fence `rest` (a line from its first non-space character) opens, if any. */
export function openingFence(rest: string): Fence | undefined {
  const marker = rest[0];
  if (marker !== '`' && marker !== '~') return undefined;
  const length = runLength(rest, 0, marker);
  if (length < 3) return undefined;
  // A backtick info string cannot hold backticks: ```x``` on one line is inline code.
  if (marker === '`' && rest.includes('`', length)) return undefined;
  return { kind: 'fence', marker, length };
}

export function closesFence(line: string, fence: Fence): boolean {
  // Indented by four columns, a fence is the code block's text.
  if (indentColumns(line) >= CODE_INDENT) return false;
  const rest = unindented(line);
  const length = runLength(rest, 0, fence.marker);
  return length >= fence.length && SPACES_AND_TABS.test(rest.slice(length));
}
