/**
 * Decides which lines of a comment may hold a command (the ones GitHub renders as plain
 * text, i.e. outside fenced and indented code, blockquotes and HTML comments) or one of our markers (an
 * HTML comment on a line of its own, outside fenced code and blockquotes). A line-by-line CommonMark
 * approximation, kept linear in the comment's length so a huge comment cannot stall a webhook.
 */

type Fence = { kind: 'fence'; marker: '`' | '~'; length: number };
type State = { kind: 'text' } | Fence | { kind: 'html_block' } | { kind: 'inline_comment' };

const TEXT: State = { kind: 'text' };
const NON_SPACE = /\S/;

/** CommonMark line endings: CRLF, LF and a lone CR. */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Index of the first non-whitespace character, or -1 for a blank line. */
export function firstNonSpace(line: string): number {
  return line.search(NON_SPACE);
}

/**
 * What each line is, for commands and markers: `text` is rendered as plain text (it may start
 * a command), `html_comment` opens an HTML comment outside code and quotes (it may be one of
 * our markers), `other` is blank, fenced, quoted or inside an HTML comment.
 */
export type LineKind = 'text' | 'html_comment' | 'other';

/** `mask[i]` is true when line i is rendered as plain text and so may start a command. */
export function commandLineMask(lines: readonly string[]): boolean[] {
  return classifyLines(lines).map((kind) => kind === 'text');
}

export function classifyLines(lines: readonly string[]): LineKind[] {
  const closesBeforeParagraphEnd = inlineCommentLookahead(lines);
  const kinds = new Array<LineKind>(lines.length).fill('other');
  let state = TEXT;
  // Whether the line before continues a paragraph: an indented line then belongs to it
  // (CommonMark: indented code cannot interrupt a paragraph); otherwise it is code.
  let inParagraph = false;
  lines.forEach((line, i) => {
    switch (state.kind) {
      case 'fence':
        if (closesFence(line, state)) state = TEXT;
        return;
      case 'html_block':
        if (line.includes('-->')) state = TEXT;
        return;
      case 'inline_comment': {
        // The lookahead guaranteed the close is on this line or a later one.
        const close = line.indexOf('-->');
        if (close >= 0) state = scanInlineComments(line, close + 3, i, closesBeforeParagraphEnd);
        return;
      }
      case 'text': {
        const start = firstNonSpace(line);
        const continuesParagraph = inParagraph;
        inParagraph = false;
        if (start < 0) return;
        // Four columns of indentation outside a paragraph: an indented code block, rendered as
        // code, so a command pasted there as an example is no command.
        if (!continuesParagraph && indentColumns(line) >= CODE_INDENT) return;
        const rest = line.slice(start);
        // A quote holds whatever it holds (fences, comments) only until it ends, so quoted
        // lines leave the state alone.
        if (rest.startsWith('>')) return;
        const fence = openingFence(rest);
        if (fence) {
          state = fence;
          return;
        }
        if (rest.startsWith('<!--')) {
          // An HTML block: the whole line is raw HTML, up to and including the line with -->.
          kinds[i] = 'html_comment';
          state = line.includes('-->', start + 4) ? TEXT : { kind: 'html_block' };
          return;
        }
        kinds[i] = 'text';
        // A heading is a line of its own; any other text line may go on in the next.
        inParagraph = !ATX_HEADING.test(rest);
        state = scanInlineComments(line, start, i, closesBeforeParagraphEnd);
        return;
      }
    }
  });
  return kinds;
}

const CODE_INDENT = 4;
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;

/** The columns of a line's leading spaces and tabs (a tab reaches the next multiple of four). */
function indentColumns(line: string): number {
  let columns = 0;
  for (const char of line) {
    if (char === ' ') columns++;
    else if (char === '\t') columns += CODE_INDENT - (columns % CODE_INDENT);
    else break;
    if (columns >= CODE_INDENT) break;
  }
  return columns;
}

function runLength(text: string, from: number, char: string): number {
  let end = from;
  while (text[end] === char) end++;
  return end - from;
}

function openingFence(rest: string): Fence | undefined {
  const marker = rest[0];
  if (marker !== '`' && marker !== '~') return undefined;
  const length = runLength(rest, 0, marker);
  if (length < 3) return undefined;
  // A backtick info string cannot hold backticks: ```x``` on one line is inline code.
  if (marker === '`' && rest.includes('`', length)) return undefined;
  return { kind: 'fence', marker, length };
}

function closesFence(line: string, fence: Fence): boolean {
  const start = firstNonSpace(line);
  if (start < 0) return false;
  const length = runLength(line, start, fence.marker);
  return length >= fence.length && !NON_SPACE.test(line.slice(start + length));
}

/**
 * Walks the inline `<!-- ... -->` spans of a text line from `from` and reports whether one
 * is left open at its end. CommonMark only treats an unclosed `<!--` as a comment when a
 * `-->` follows within the same paragraph; otherwise it is literal text.
 */
function scanInlineComments(
  line: string,
  from: number,
  index: number,
  closesBeforeParagraphEnd: (nextLine: number) => boolean,
): State {
  let position = from;
  for (;;) {
    const open = line.indexOf('<!--', position);
    if (open < 0) return TEXT;
    const close = line.indexOf('-->', open + 4);
    if (close < 0) {
      return closesBeforeParagraphEnd(index + 1) ? { kind: 'inline_comment' } : TEXT;
    }
    position = close + 3;
  }
}

/**
 * Precomputes, for every line, the next line holding `-->` and the next blank line, so each
 * unclosed inline `<!--` is resolved in constant time rather than by rescanning.
 */
function inlineCommentLookahead(lines: readonly string[]): (fromLine: number) => boolean {
  const none = lines.length;
  const nextClose = new Array<number>(lines.length + 1).fill(none);
  const nextBlank = new Array<number>(lines.length + 1).fill(none);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? '';
    nextClose[i] = line.includes('-->') ? i : (nextClose[i + 1] ?? none);
    nextBlank[i] = NON_SPACE.test(line) ? (nextBlank[i + 1] ?? none) : i;
  }
  return (fromLine) => (nextClose[fromLine] ?? none) < (nextBlank[fromLine] ?? none);
}
