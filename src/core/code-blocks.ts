/**
 * The lines of an issue's markdown that GitHub surely shows as a code block's text, as written
 * (docs/security.md, "Text nobody saw"). A code block's text is escaped in the rendered HTML:
 * nothing in it is hidden, an HTML comment or a `<?php` no more than a word. Taking a line for
 * code that GitHub renders otherwise, raw HTML in an HTML block or a list item's text, would let
 * what it hides through; so a line is code only when it is code in every reading of the
 * markdown's block structure these rules cannot rule out.
 *
 * The reading follows CommonMark's blocks as GitHub's cmark-gfm parses them (src/blocks.c,
 * src/scanners.re) line by line, holding every reading still possible at once: a paragraph's line
 * or a table's, a tag that opens an HTML block or is text, the forms later versions of the spec
 * added. It tells code apart at the top level only: a line in a quote, a list item or a footnote
 * is text, and the reading follows no more of them than where they end (their width, and the
 * lines that may go on their paragraph lazily).
 */
import {
  CODE_INDENT,
  closesFence,
  indentColumns,
  openingFence,
  unindented,
  type Fence,
} from './markdown-fences.js';

/** A line shown as a code block's text (`code`), its fence (`fence`), or anything else. */
export type CodeBlockLine = 'text' | 'fence' | 'code';

/** How an HTML block ends: at a blank line, at a raw element's closing tag, or at a string. */
type HtmlEnd = 'blank' | 'raw' | '-->' | '?>' | '>' | ']]>';

/**
 * A container at the top level: the columns of indentation a line needs to go on in it (a quote's
 * lines start with `>` instead), whether it holds nothing yet (a list item whose first line is
 * blank), and the block its last line is in, read as at the top level: a paragraph's line may be
 * followed by a lazy one, a fence's or an HTML block's not.
 */
type Contained = {
  kind: 'contained';
  of: 'quote' | 'item' | 'footnote';
  width: number;
  empty: boolean;
  inner: Inner;
};

/**
 * Where a container's line stands in it: as at the top level, or in a container of its own, which
 * is not followed (any line but one after a blank line may be a paragraph's there).
 */
type Inner = Top | Fenced | Html | { kind: 'nested'; afterBlank: boolean };
type Top = { kind: 'top'; paragraph: boolean };
type Fenced = { kind: 'fenced'; fence: Fence; verbatim: boolean };
type Html = { kind: 'html'; end: HtmlEnd };

/** Where a line may stand. */
type Reading =
  /** At the top level; in a paragraph (or what may go on like one: a table), or not. */
  | Top
  /** In a quote, a list item or a footnote that opened at the top level. */
  | Contained
  /** In a fenced code block at the top level, whose text GitHub shows as written, or not. */
  | Fenced
  | Html
  /** Too many readings to follow: nothing more is taken for code. */
  | { kind: 'lost' };

const TOP: Top = { kind: 'top', paragraph: false };
const PARAGRAPH: Top = { kind: 'top', paragraph: true };
/**
 * A line of a paragraph, or one that ends it (a setext underline, a thematic break, a table's
 * delimiter row, which the same characters may spell): what follows may go on a paragraph, or not.
 */
const PARAGRAPH_OR_NOT: readonly Reading[] = [PARAGRAPH, TOP];
/** The readings of a container's first line, `content` its text after the container's marker. */
const contained = (of: Contained['of'], width: number, content: string): Contained[] =>
  innerAfter(TOP, content).map((inner) => ({ kind: 'contained', of, width, empty: false, inner }));
const LOST: Reading = { kind: 'lost' };
const html = (end: HtmlEnd): Html => ({ kind: 'html', end });

/** Bounds the work per line: readings multiply only on hostile text. */
const MAX_READINGS = 32;

const BLANK = /^[ \t]*$/;
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
const THEMATIC_BREAK = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
/**
 * A setext heading's underline, under a paragraph; under one that held only definitions
 * (cmark-gfm resolves them first), a paragraph's text.
 */
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;
/** What opens a container, or may: a quote, a list item, a footnote. */
const CONTAINER_START = /^(?:>|[-+*](?=[ \t\v\f]|$)|\d{1,9}[.)](?=[ \t\v\f]|$)|\[\^)/;
/** A list item's marker (cmark-gfm takes a vertical tab or a form feed after it too). */
const LIST_MARKER = /^(?:[-+*]|(\d{1,9})[.)])(?=[ \t\v\f]|$)/;
const FOOTNOTE_START = /^\[\^[^\] \t\r\n\0]+\]:/;

/**
 * HTML blocks' starts (CommonMark 0.29, cmark-gfm's scanners.re) and the forms later versions of
 * the spec added (a lower-case declaration, `<textarea>` among the raw elements), in case
 * GitHub's parser follows them.
 */
const RAW_START = /^<(?:script|pre|style)(?:[ \t\v\f>]|$)/i;
const TEXTAREA_START = /^<textarea(?:[ \t\v\f>]|$)/i;
const RAW_END = /<\/(?:script|pre|style)>/i;
const TEXTAREA_END = /<\/textarea>/i;
const DECLARATION = /^<![A-Z]/;
const LOWER_CASE_DECLARATION = /^<![a-z]/;
/**
 * The names that open an HTML block ended by a blank line in every version of the spec since
 * 0.29 (`source` left the list and `search` came in later: those may be either).
 */
const BLOCK_TAG_START = new RegExp(
  `^</?(?:${[
    'address',
    'article',
    'aside',
    'base',
    'basefont',
    'blockquote',
    'body',
    'caption',
    'center',
    'col',
    'colgroup',
    'dd',
    'details',
    'dialog',
    'dir',
    'div',
    'dl',
    'dt',
    'fieldset',
    'figcaption',
    'figure',
    'footer',
    'form',
    'frame',
    'frameset',
    'h[1-6]',
    'head',
    'header',
    'hr',
    'html',
    'iframe',
    'legend',
    'li',
    'link',
    'main',
    'menu',
    'menuitem',
    'nav',
    'noframes',
    'ol',
    'optgroup',
    'option',
    'p',
    'param',
    'section',
    'summary',
    'table',
    'tbody',
    'td',
    'tfoot',
    'th',
    'thead',
    'title',
    'tr',
    'track',
    'ul',
  ].join('|')})(?:[ \\t\\v\\f]|/?>|$)`,
  'i',
);
/** A tag that may open an HTML block ended by a blank line, if it is all the line holds. */
const TAG_START = /^<\/?[A-Za-z]/;

/**
 * Fenced blocks GitHub draws instead of showing their text: diagrams and maps
 * (docs.github.com, "Creating diagrams") and math ("Writing mathematical expressions"). Their
 * text is not shown as written: a Mermaid `%%` comment is hidden.
 */
const DRAWN = new Set(['mermaid', 'geojson', 'topojson', 'stl', 'math']);
/** Where cmark-gfm ends an info string's first word, the language it gives the block. */
const INFO_SPACE = /[ \t\v\f]/;

/** For each line, whether GitHub surely shows it as a code block's text or fence. */
export function codeBlockLines(lines: readonly string[]): CodeBlockLine[] {
  let readings: readonly Reading[] = [TOP];
  return lines.map((line, index) => {
    // cmark-gfm skips a byte order mark that starts the text; GitHub may have dropped it before.
    const variants = index === 0 && line.startsWith('\ufeff') ? [line, line.slice(1)] : [line];
    const next = new Map<string, Reading>();
    let kind: CodeBlockLine | undefined;
    for (const reading of readings)
      for (const variant of variants) {
        const [lineKind, after] = step(reading, variant);
        kind = kind === undefined || kind === lineKind ? lineKind : 'text';
        for (const r of after) next.set(JSON.stringify(r), r);
      }
    readings = next.size <= MAX_READINGS ? [...next.values()] : [LOST];
    return kind ?? 'text';
  });
}

/** What the line is in this reading, and where the next line may stand. */
function step(reading: Reading, line: string): [CodeBlockLine, readonly Reading[]] {
  switch (reading.kind) {
    case 'fenced':
      if (closesFence(line, reading.fence)) return [reading.verbatim ? 'fence' : 'text', [TOP]];
      return [reading.verbatim ? 'code' : 'text', [reading]];
    case 'html':
      return ['text', afterHtmlLine(reading.end, line)];
    case 'contained':
      return inContainer(reading, line);
    case 'top':
      return atTop(reading.paragraph, line);
    case 'lost':
      return ['text', [LOST]];
  }
}

function atTop(paragraph: boolean, line: string): [CodeBlockLine, readonly Reading[]] {
  if (BLANK.test(line)) return ['text', [TOP]];
  // An indented line goes on a paragraph (CommonMark: indented code cannot interrupt one).
  if (indentColumns(line) >= CODE_INDENT)
    return paragraph ? ['text', [PARAGRAPH]] : ['code', [TOP]];
  const rest = unindented(line);
  const fence = openingFence(rest);
  if (fence) {
    const verbatim = showsAsWritten(rest.slice(fence.length));
    return [verbatim ? 'fence' : 'text', [{ kind: 'fenced', fence, verbatim }]];
  }
  if (paragraph && SETEXT_UNDERLINE.test(rest)) return ['text', PARAGRAPH_OR_NOT];
  if (ATX_HEADING.test(rest) || THEMATIC_BREAK.test(rest)) return ['text', [TOP]];
  const html = htmlBlockStart(rest);
  if (html) return ['text', html];
  if (rest.startsWith('>')) return ['text', contained('quote', 0, quoted(line))];
  const footnote = FOOTNOTE_START.exec(rest)?.[0];
  if (footnote) return ['text', contained('footnote', CODE_INDENT, rest.slice(footnote.length))];
  return ['text', listItem(line, rest, paragraph) ?? PARAGRAPH_OR_NOT];
}

/**
 * The list item a line opens, if it does (cmark-gfm's parse_list_marker): in a paragraph, only
 * one with text, and an ordered one only from 1. A line goes on in it from the column of its
 * text (after its marker and one to four spaces), or one past the marker.
 */
function listItem(line: string, rest: string, paragraph: boolean): Contained[] | undefined {
  const marker = LIST_MARKER.exec(rest);
  if (!marker) return undefined;
  const empty = BLANK.test(rest.slice(marker[0].length));
  if (paragraph && (empty || (marker[1] !== undefined && Number(marker[1]) !== 1)))
    return undefined;
  const markerEnd = line.length - rest.length + marker[0].length;
  let padding = 0;
  for (let at = markerEnd; padding <= 5 && (line[at] === ' ' || line[at] === '\t'); at++)
    padding += line[at] === '\t' ? CODE_INDENT - ((markerEnd + padding) % CODE_INDENT) : 1;
  const spaces = empty || padding < 1 || padding >= 5 ? 1 : padding;
  const text = line.slice(markerEnd).replace(/^[ \t]*/, ' '.repeat(Math.max(0, padding - spaces)));
  return contained('item', markerEnd + spaces, text).map((item) => ({ ...item, empty }));
}

/**
 * A container goes on over its own lines (a quote's `>` lines, a list item's or a footnote's
 * lines indented to its width, blank or not), blank lines (a list item's once it holds something,
 * a footnote's if they are empty) and, lazily, lines that open no block of their own, which may go
 * on its paragraph. Any other line ends it, and is read at the top level.
 */
function inContainer(container: Contained, line: string): [CodeBlockLine, readonly Reading[]] {
  const { of, width, empty, inner } = container;
  const blank = BLANK.test(line);
  const columns = indentColumns(line, Infinity);
  const rest = unindented(line);
  let goesOn: boolean;
  if (of === 'quote') goesOn = columns < CODE_INDENT && rest.startsWith('>');
  else if (columns >= width) goesOn = true;
  else goesOn = blank && (of === 'footnote' ? line === '' : !empty);
  if (goesOn) {
    const content = of === 'quote' ? quoted(line) : ' '.repeat(Math.max(0, columns - width)) + rest;
    const after = innerAfter(inner, content);
    return ['text', after.map((next) => ({ ...container, empty: empty && blank, inner: next }))];
  }
  if (blank) return ['text', [TOP]];
  const [kind, atTopLevel] = atTop(false, line);
  const paragraph =
    inner.kind === 'nested' ? !inner.afterBlank : inner.kind === 'top' && inner.paragraph;
  // An indented line goes on a paragraph, not a code block, even at the top level.
  const lazy = paragraph && (indentColumns(line) >= CODE_INDENT || atTopLevel.includes(PARAGRAPH));
  return lazy ? ['text', [container, ...atTopLevel]] : [kind, atTopLevel];
}

/** A quote's line from after its `>` and the column of space after it, indented as it stands. */
function quoted(line: string): string {
  const marker = line.indexOf('>');
  const spaced = line[marker + 1] === ' ' || line[marker + 1] === '\t';
  const text = unindented(line.slice(marker + 1));
  // A tab after the `>` reaches the next tab stop: the column of space skipped is one of its.
  const indentation = columnOf(line, line.length - text.length) - columnOf(line, marker + 1);
  return ' '.repeat(Math.max(0, indentation - (spaced ? 1 : 0))) + text;
}

/** The column at `index` of the line, a tab reaching the next multiple of four. */
function columnOf(line: string, index: number): number {
  let column = 0;
  for (let i = 0; i < index; i++)
    column += line[i] === '\t' ? CODE_INDENT - (column % CODE_INDENT) : 1;
  return column;
}

/**
 * Where a container's line (its text after the container's marker or indentation) may leave the
 * container's inside, read as at the top level; a container in it is not followed.
 */
function innerAfter(inner: Inner, content: string): Inner[] {
  if (inner.kind === 'nested') return [{ kind: 'nested', afterBlank: BLANK.test(content) }];
  const nests =
    inner.kind === 'top' &&
    indentColumns(content) < CODE_INDENT &&
    CONTAINER_START.test(unindented(content));
  if (nests) return [{ kind: 'nested', afterBlank: false }];
  return step(inner, content)[1].map((next) =>
    next.kind === 'contained' || next.kind === 'lost'
      ? { kind: 'nested', afterBlank: false }
      : next,
  );
}

/** The readings after a line that may open an HTML block, if it may. */
function htmlBlockStart(rest: string): readonly Reading[] | undefined {
  if (rest.startsWith('<!--')) return afterHtmlLine('-->', rest);
  if (rest.startsWith('<?')) return afterHtmlLine('?>', rest);
  if (rest.startsWith('<![CDATA[')) return afterHtmlLine(']]>', rest);
  if (DECLARATION.test(rest)) return afterHtmlLine('>', rest);
  if (LOWER_CASE_DECLARATION.test(rest)) return [...afterHtmlLine('>', rest), ...PARAGRAPH_OR_NOT];
  if (RAW_START.test(rest)) return afterHtmlLine('raw', rest);
  if (TEXTAREA_START.test(rest))
    return [...afterHtmlLine('raw', rest), html('blank'), ...PARAGRAPH_OR_NOT];
  if (BLOCK_TAG_START.test(rest)) return [html('blank')];
  // Any other tag alone on its line opens a block, but not in a paragraph; else it is text.
  if (TAG_START.test(rest)) return [html('blank'), ...PARAGRAPH_OR_NOT];
  return undefined;
}

/** The readings after a line of an HTML block (its first line included) that ends as `end` says. */
function afterHtmlLine(end: HtmlEnd, line: string): readonly Reading[] {
  switch (end) {
    case 'blank':
      return BLANK.test(line) ? [TOP] : [html(end)];
    case 'raw':
      if (RAW_END.test(line)) return [TOP];
      return TEXTAREA_END.test(line) ? [TOP, html(end)] : [html(end)];
    default:
      return line.includes(end) ? [TOP] : [html(end)];
  }
}

/** Whether GitHub shows a fenced block's text as written: not when it draws its language. */
function showsAsWritten(info: string): boolean {
  return !DRAWN.has(fenceLanguage(info));
}

/**
 * The language an info string gives its block, lower-cased: its first word, with the escapes and
 * numeric references cmark-gfm decodes in it (no named one stands for a letter).
 */
export function fenceLanguage(info: string): string {
  const word = info.replace(/^[ \t\v\f]+/, '').split(INFO_SPACE)[0]!;
  return word
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(
      /&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));/g,
      (reference, hex?: string, decimal?: string) => {
        const code = hex !== undefined ? parseInt(hex, 16) : Number(decimal);
        return code <= 0x7f ? String.fromCharCode(code) : reference;
      },
    )
    .toLowerCase();
}
