/**
 * Decides which lines of a comment may hold a command (the ones GitHub renders as plain
 * text, i.e. outside fenced and indented code, blockquotes, `<pre>`-like HTML blocks and HTML
 * comments) or one of our markers (an HTML comment on a line of its own, outside fenced code and
 * blockquotes). A line-by-line CommonMark approximation, kept linear in the comment's length so a
 * huge comment cannot stall a webhook. Where it errs, it errs towards code: a writer's command it
 * misses gets no answer, while text it wrongly took for a command would act in the writer's name.
 */

import {
  CODE_INDENT,
  closesFence,
  indentColumns,
  openingFence,
  type Fence,
} from '../markdown-fences.js';

/** Raw HTML up to the line holding `end` (lower-cased). */
type HtmlBlock = { kind: 'html_block'; end: string };
type State = { kind: 'text' } | Fence | HtmlBlock | { kind: 'inline_comment' };

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
  // Whether the line before was in a quote that ends in a paragraph (CommonMark's lazy
  // continuation): a line that starts no block of its own goes on that paragraph, in the quote.
  // Text pasted after a single `>` renders quoted whole.
  let inQuote = false;
  lines.forEach((line, i) => {
    switch (state.kind) {
      case 'fence':
        if (closesFence(line, state)) state = TEXT;
        return;
      case 'html_block':
        if (line.toLowerCase().includes(state.end)) state = TEXT;
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
        const continuesQuote = inQuote;
        inParagraph = false;
        inQuote = false;
        if (start < 0) return;
        // Four columns of indentation outside a paragraph: an indented code block, rendered as
        // code, so a command pasted there as an example is no command.
        if (!continuesParagraph && !continuesQuote && indentColumns(line) >= CODE_INDENT) return;
        const rest = line.slice(start);
        const { quoted, content } = containers(rest);
        // A quote holds whatever it holds (fences, comments) only until it ends, so quoted
        // lines leave the state alone.
        if (quoted) {
          inQuote = content !== '' && !openingFence(content) && !ATX_HEADING.test(content);
          return;
        }
        if (continuesQuote && !interruptsQuote(rest, content)) {
          inQuote = true;
          return;
        }
        // A fence may open a list item (`- ```` or `1. ````): its lines are code too.
        const fence = openingFence(content);
        if (fence) {
          state = fence;
          return;
        }
        if (rest.startsWith('<!--')) {
          // An HTML block: the whole line is raw HTML, up to and including the line with -->.
          kinds[i] = 'html_comment';
          state = line.includes('-->', start + 4) ? TEXT : { kind: 'html_block', end: '-->' };
          return;
        }
        const raw = rawHtmlBlock(rest);
        if (raw) {
          if (!rest.toLowerCase().includes(raw.end)) state = raw;
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

const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
const LIST_MARKER = /(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)/y;
const THEMATIC_BREAK = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
// CommonMark's HTML blocks of the first kind: raw up to their closing tag, not a blank line.
// GitHub shows a <pre>'s lines as code, and drops a <script>'s or a <style>'s.
const RAW_HTML = /^<(pre|script|style|textarea)(?=[\s>]|$)/i;

/**
 * Whether `rest` (a line from its first non-space character) is quoted, and what follows the
 * `>` and list markers it starts with: `- > a` is a quote in a list item, `1. ```` a fence.
 */
function containers(rest: string): { quoted: boolean; content: string } {
  let quoted = false;
  let at = 0;
  for (;;) {
    while (rest[at] === ' ' || rest[at] === '\t') at++;
    if (rest[at] === '>') {
      quoted = true;
      at++;
      continue;
    }
    LIST_MARKER.lastIndex = at;
    if (!LIST_MARKER.test(rest)) return { quoted, content: rest.slice(at) };
    at = LIST_MARKER.lastIndex;
  }
}

/**
 * Whether a line after a quote starts a block outside it (cmark-gfm: any list item, even one
 * that could not interrupt a paragraph of its own). Only blocks that surely do: one taken for
 * such a block when it is not would let the line after it out of the quote.
 */
function interruptsQuote(rest: string, content: string): boolean {
  return (
    content !== rest ||
    openingFence(rest) !== undefined ||
    rest.startsWith('<!--') ||
    rawHtmlBlock(rest) !== undefined ||
    ATX_HEADING.test(rest) ||
    THEMATIC_BREAK.test(rest)
  );
}

function rawHtmlBlock(rest: string): HtmlBlock | undefined {
  const tag = RAW_HTML.exec(rest)?.[1];
  return tag ? { kind: 'html_block', end: `</${tag.toLowerCase()}>` } : undefined;
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
