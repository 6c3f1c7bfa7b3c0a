/**
 * Raw HTML tags in an issue's markdown as GitHub shows them (docs/security.md, "Text nobody
 * saw"). A tag shows no text of its own: its name and attributes are markup, and GitHub's
 * sanitiser drops the elements and attributes it does not allow (html-pipeline's
 * SanitizationFilter). Of a tag GitHub allows, the name stays, and of its attributes a title, a
 * link's address and an image's source, which a person sees by hovering or as the image; a tag it
 * drops goes whole.
 *
 * Where a tag ends is read as GitHub's HTML parser reads it (the HTML standard's tokenizer: a `>`
 * ends it but inside a quoted value, and a quote opens a value only after `=`). cmark-gfm passes
 * raw HTML through as written only in an HTML block, or as an inline tag that closes within its
 * paragraph; elsewhere it escapes `<`, `>` and `"` (not `'`). So a tag in a paragraph that does
 * not close before a blank line is text. One in an HTML block ends, on GitHub, at its `>` or, at
 * the latest, at the first tag of what follows the block: it hides to its `>` or to the block's
 * end (the next blank line). But a quoted value left open there runs to the next `"` of the HTML,
 * raw or written by cmark-gfm (a link's `href="`), past any text between: all that follows it is
 * left out. So is all that follows the opening of an element whose text GitHub does not show
 * (`<rp>`, drawn as nothing), may drop with it (`<template>`, `<svg>`, `<math>`, `<noscript>`, a
 * raw-text element the tag filter missed) or draws too small to read (a third nested `<sub>`,
 * `<sup>` or `<small>`).
 *
 * These rules cannot tell which `<` GitHub takes for a tag (one in a code span is text, and a tag
 * may start inside what looked like another's attribute), so each `<` is read as if it opened
 * one, and what any of them would hide is left out.
 */

import { BLANK_LINE, afterPrefix, lineStarts, prefixLength } from './markdown-prefix.js';
import type { Cut } from './text-cuts.js';

/** GitHub's allowed elements (html-pipeline's SanitizationFilter, with `picture` and `source`). */
const ALLOWED = new Set(
  [
    'h1 h2 h3 h4 h5 h6 br b i strong em a pre code img tt div ins del sup sub p ol ul table',
    'thead tbody tfoot blockquote dl dt dd kbd q samp var hr ruby rt rp li tr td th s strike',
    'summary details caption figure figcaption abbr bdo cite dfn mark small span time wbr',
    'picture source',
  ]
    .join(' ')
    .split(' '),
);
/** Tags cmark-gfm's tag filter escapes (GFM's "Disallowed Raw HTML"): shown as text. */
const FILTERED = /^(?:title|textarea|style|xmp|iframe|noembed|noframes|script|plaintext)$/i;
/** Elements whose text GitHub does not show, or may drop with the element. */
const CONTENTS_HIDDEN = new Set(['rp', 'template', 'svg', 'math', 'noscript', 'select']);
/** Elements that draw their text smaller: three deep, it is too small to read. */
const SMALLER = new Set(['sub', 'sup', 'small']);
const TOO_SMALL_DEPTH = 3;
/** CommonMark's first kind of HTML block, which blank lines do not end. */
const RAW_BLOCK_OPEN = /^<(?:script|pre|style|textarea)(?:[\s>]|$)/i;
const RAW_BLOCK_CLOSE = /<\/(?:script|pre|style|textarea)>/i;
const TAG_OPEN = /<\/?[A-Za-z]/g;
/** CommonMark's autolinks, which a paragraph shows as links rather than tags. */
const AUTOLINK =
  // eslint-disable-next-line no-control-regex -- an autolink holds no control character or space
  /^<(?:[A-Za-z][A-Za-z0-9.+-]{1,31}:[^\x00-\x20<>]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>/;
/** The HTML tokenizer's whitespace, and what ends a tag's name, an attribute's, a value. */
const SPACE = /[\t\n\f\r ]/;
const NAME_END = /[\t\n\f\r />]/;
const ATTRIBUTE_END = /[\t\n\f\r />=]/;
const VALUE_END = /[\t\n\f\r >]/;
/** Bounds the work per tag on hostile text; a tag read no further is taken to hide the rest. */
const MAX_TAG_LENGTH = 4096;

type Attribute = { name: string; start: number; end: number };
/** How a reading of a tag ends. */
type Scan =
  /** At its `>`, `end` past it. */
  | { kind: 'tag'; end: number; name: string; closing: boolean; attributes: Attribute[] }
  /** In an unquoted state where its block may end (a blank line), or at the end of the text. */
  | { kind: 'unclosed'; stop: number }
  /** In a quoted value at its line's end, in an HTML block; or read too far. */
  | { kind: 'rest' }
  /** Not at all: an inline tag that does not close before its paragraph's end is text. */
  | { kind: 'text' };

/** What the tags hide: spans (a kept tag standing in for one), and where all the rest goes. */
export type HiddenTags = { cuts: Cut[]; restFrom: number | undefined };

/**
 * The lines of the text; for each, whether it may be raw HTML of an HTML block, of a first-kind
 * one, and whether its paragraph (to blank lines) has a backtick.
 */
type Lines = {
  text: string;
  starts: number[];
  html: boolean[];
  raw: boolean[];
  backtick: boolean[];
};

/**
 * What the text's tags hide. `shown` marks what is not known to show nothing already (a
 * comment's text is not), where alone a closing tag may count.
 */
export function hiddenTags(text: string, shown: (at: number) => boolean): HiddenTags {
  const cuts: Cut[] = [];
  if (!/<\/?[A-Za-z]/.test(text)) return { cuts, restFrom: undefined };
  const lines = linesOf(text);
  let restFrom: number | undefined;
  let depth = 0;
  // The end of the furthest tag read so far: a `<` before it may be in a tag's attribute.
  let tagsEnd = 0;
  for (const match of text.matchAll(TAG_OPEN)) {
    const at = match.index;
    if (restFrom !== undefined) break;
    const tag = readTag(lines, at);
    if (tag === undefined) continue;
    if (tag.kind === 'rest') {
      restFrom = at;
      break;
    }
    const inTag = at < tagsEnd;
    tagsEnd = Math.max(tagsEnd, tag.end);
    cuts.push(...(tag.agreed ? keptTag(text, at, tag.agreed) : [{ start: at, end: tag.end }]));
    // A tag left open in an HTML block is an element all the same: the next block's tag ends it.
    const { name, closing } = tag;
    if (!closing && (CONTENTS_HIDDEN.has(name) || FILTERED.test(name))) restFrom = at;
    else if (SMALLER.has(name)) {
      if (!closing) depth++;
      // A closing tag counts only where every reading makes it one.
      else if (!inTag && tag.agreed && surelyClosing(lines, at, shown))
        depth = Math.max(0, depth - 1);
      if (depth >= TOO_SMALL_DEPTH) restFrom = at;
    }
  }
  return { cuts, restFrom };
}

/** Whether the text at an offset may be raw HTML of an HTML block (see linesOf). */
export function inHtmlBlock(text: string): (at: number) => boolean {
  const lines = linesOf(text);
  return (at) => lines.html[lineAt(lines, at)]!;
}

type TagScan = Extract<Scan, { kind: 'tag' }>;
/**
 * What a `<` hides: all after it, or up to `end`, as a tag of `name` (lower-case), and the tag
 * both readings agree on, which keeps what GitHub shows of it.
 */
type Read =
  | { kind: 'rest' }
  | { kind: 'hides'; end: number; name: string; closing: boolean; agreed: TagScan | undefined };

/**
 * The tag at `at` as the readings GitHub's may agree with: with what may be a container's prefix
 * on the lines it runs over left out (a quote's `>`), or kept (a paragraph's line indented by
 * four, whose `>` is text). Undefined when no reading makes it a tag that hides anything.
 */
function readTag(lines: Lines, at: number): Read | undefined {
  const [, slash, name, after] = /^<(\/?)([^\t\n\f\r />]*)([\s\S]?[\s\S]?)/.exec(
    lines.text.slice(at, at + 40),
  )!;
  // The tag filter escapes `<script>`, `<script/>` and the like: the text shows as written.
  if (FILTERED.test(name!) && /^(?:[\t\n\v\f\r >]|\/>)/.test(after!)) return undefined;
  // A paragraph shows an autolink as a link (cmark-gfm tries one before a tag).
  if (!lines.html[lineAt(lines, at)] && AUTOLINK.test(lines.text.slice(at, at + 2048)))
    return undefined;
  const readings = [scanTag(lines, at, true), scanTag(lines, at, false)];
  if (readings.some((r) => r.kind === 'rest')) return { kind: 'rest' };
  const tags = readings.filter((r) => r.kind === 'tag');
  const ends = readings.flatMap((r) =>
    r.kind === 'tag' ? [r.end] : r.kind === 'unclosed' ? [r.stop] : [],
  );
  if (ends.length === 0) return undefined;
  const agreed = tags.length === 2 && tags[0]!.end === tags[1]!.end ? tags[0] : undefined;
  return {
    kind: 'hides',
    end: Math.max(...ends),
    name: name!.toLowerCase(),
    closing: slash === '/',
    agreed,
  };
}

/** What stands for a tag that ended at its `>`: itself, what GitHub shows of it, or nothing. */
function keptTag(text: string, at: number, tag: TagScan): Cut[] {
  const name = tag.name.toLowerCase();
  if (!ALLOWED.has(name)) return [{ start: at, end: tag.end }];
  const shown = tag.attributes.filter((a) => shownAttribute(name, a.name));
  if (shown.length === tag.attributes.length) return [];
  const attributes = shown.map((a) => ` ${text.slice(a.start, a.end)}`).join('');
  return [
    { start: at, end: tag.end, replacement: `<${tag.closing ? '/' : ''}${tag.name}${attributes}>` },
  ];
}

/** An attribute a person sees: a title by hovering, a link's address by hovering, an image. */
function shownAttribute(element: string, attribute: string): boolean {
  return (
    attribute === 'title' ||
    (element === 'a' && attribute === 'href') ||
    (element === 'img' && attribute === 'src')
  );
}

/**
 * Whether a closing tag surely closes on GitHub: not escaped, not in what shows nothing already (a
 * comment), and in no paragraph with a backtick, where it may be a code span's text. Counting one
 * that does not would give text GitHub draws too small.
 */
function surelyClosing(lines: Lines, at: number, shown: (at: number) => boolean): boolean {
  return lines.text[at - 1] !== '\\' && shown(at) && !lines.backtick[lineAt(lines, at)]!;
}

/**
 * One reading of the tag at `at`, with the HTML standard's tokenizer from its tag open state.
 * A line is raw HTML in an HTML block (`lines.html`) or a paragraph's, where an inline tag may
 * run over lines to the paragraph's end, quoted values too.
 */
function scanTag(lines: Lines, at: number, skipPrefixes: boolean): Scan {
  const { text } = lines;
  const inBlock = lines.html[lineAt(lines, at)]!;
  const limit = Math.min(text.length, at + MAX_TAG_LENGTH);
  let pos = at + 1;
  const closing = text[pos] === '/';
  if (closing) pos++;
  const nameStart = pos;
  while (pos < limit && !NAME_END.test(text[pos]!)) pos++;
  const name = text.slice(nameStart, pos);
  const attributes: Attribute[] = [];

  /** Past spaces (and, if `slashes`, slashes) over lines; false where the tag's block may end. */
  const skip = (slashes: boolean): boolean => {
    for (; pos < limit; pos++) {
      const char = text[pos]!;
      if (char === '\n') {
        const line = lineAt(lines, pos + 1);
        const next = lineText(lines, line);
        if (BLANK_LINE.test(next) && !lines.raw[line]) return false;
        if (skipPrefixes) pos += prefixLength(next);
        continue;
      }
      if (!SPACE.test(char) && !(slashes && char === '/')) return true;
    }
    return false;
  };
  const unclosed = (): Scan => {
    if (pos >= limit && limit < text.length) return { kind: 'rest' };
    return inBlock ? { kind: 'unclosed', stop: Math.min(pos, text.length) } : { kind: 'text' };
  };

  for (;;) {
    if (!skip(true)) return unclosed();
    if (text[pos] === '>') return { kind: 'tag', end: pos + 1, name, closing, attributes };
    const start = pos++;
    while (pos < limit && !ATTRIBUTE_END.test(text[pos]!)) pos++;
    const attribute = text.slice(start, pos).toLowerCase();
    const nameEnd = pos;
    if (!skip(false)) return unclosed();
    if (text[pos] !== '=') {
      attributes.push({ name: attribute, start, end: nameEnd });
      continue;
    }
    pos++;
    if (!skip(false)) return unclosed();
    const quote = text[pos];
    if (quote === '"' || quote === "'") {
      const close = closingQuote(lines, pos, inBlock);
      if (typeof close !== 'number') return { kind: close };
      pos = close + 1;
    } else while (pos < limit && !VALUE_END.test(text[pos]!)) pos++;
    attributes.push({ name: attribute, start, end: pos });
  }
}

/**
 * Where the value quoted at `at` closes: on its line in an HTML block (past it, GitHub's parser
 * reads on through escaped text to a quote of the HTML that these rules cannot see), before the
 * paragraph's end inline (else the tag is text); `rest` if nothing can tell.
 */
function closingQuote(lines: Lines, at: number, inBlock: boolean): number | 'rest' | 'text' {
  const { text } = lines;
  const close = text.indexOf(text[at]!, at + 1);
  if (close >= 0 && close - at > MAX_TAG_LENGTH) return 'rest';
  const between = text.slice(at + 1, close < 0 ? text.length : close);
  if (inBlock) return close >= 0 && !between.includes('\n') ? close : 'rest';
  if (close < 0 || between.split('\n').some((line) => BLANK_LINE.test(line))) return 'text';
  return close;
}

/**
 * For each line, whether it may be raw HTML of an HTML block: after a line that may open one (its
 * text after any container starts with `<`) up to a blank line, or in a block of the first kind
 * (`<pre>`, `<script>`, `<style>`, `<textarea>`), which runs to its closing tag, blank lines and
 * all; whether it is in one of those; and whether its paragraph has a backtick.
 */
function linesOf(text: string): Lines {
  const starts = lineStarts(text);
  const html: boolean[] = [];
  const raw: boolean[] = [];
  const backtick: boolean[] = [];
  let inBlock = false;
  let inRaw = false;
  let paragraph: number[] = [];
  let paragraphBacktick = false;
  const endParagraph = () => {
    for (const line of paragraph) backtick[line] = paragraphBacktick;
    paragraph = [];
    paragraphBacktick = false;
  };
  text.split('\n').forEach((line, i) => {
    const start = afterPrefix(line);
    let lineRaw = inRaw;
    if (inRaw) inRaw = !RAW_BLOCK_CLOSE.test(line);
    else if (RAW_BLOCK_OPEN.test(start)) {
      lineRaw = true;
      inRaw = !RAW_BLOCK_CLOSE.test(line);
    }
    const blank = BLANK_LINE.test(line);
    if (blank) inBlock = false;
    else if (start.startsWith('<')) inBlock = true;
    html.push(inBlock || lineRaw);
    raw.push(lineRaw);
    if (blank) endParagraph();
    paragraph.push(i);
    paragraphBacktick ||= line.includes('`');
  });
  endParagraph();
  return { text, starts, html, raw, backtick };
}

function lineAt(lines: Lines, at: number): number {
  let low = 0;
  let high = lines.starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (lines.starts[middle]! <= at) low = middle;
    else high = middle - 1;
  }
  return low;
}

function lineEnd(lines: Lines, line: number): number {
  const next = lines.starts[line + 1];
  return next === undefined ? lines.text.length : next - 1;
}

function lineText(lines: Lines, line: number): string {
  return lines.text.slice(lines.starts[line], lineEnd(lines, line));
}
