/**
 * The labelled issue as the person who labelled it could read it (docs/security.md, "Text nobody
 * saw"). A person with write access chooses an issue for the agents by reading it on GitHub,
 * which shows only part of what its author may have written: HTML comments, declarations,
 * processing instructions and CDATA (raw HTML that GitHub's sanitiser drops), link reference and
 * footnote definitions (no text of theirs is shown), a code fence's info string but for a
 * language's name, and characters that render as nothing (Unicode tag characters, which spell out
 * ASCII, variation selectors, zero-width and bidi controls, and the references that stand for
 * them). So do a tag's own text and what a tag left open hides (html-tags.ts), an image's
 * description and a reference link's label (link-text.ts), math that may draw text as nothing
 * (math-text.ts) and what a Mermaid diagram does not draw (mermaid-text.ts). An agent reads the
 * raw text: hidden there, an author's instructions would reach it without anybody having read
 * them. What a person sees only by hovering or opening (a link's address, a title, a `<details>`
 * section) stays.
 *
 * A code block shows its text as written, and an agent needs a code sample verbatim: the lines
 * GitHub surely shows as a code block (code-blocks.ts) keep all but their invisible characters.
 * Elsewhere, where these rules and GitHub's renderer could disagree they leave text out:
 * something GitHub shows (an HTML comment in a list item's code, prose shaped like a definition)
 * may be lost to the agent, never the reverse. A comment that does not close on its own line is
 * taken out to its close only where it surely opens an HTML block of its own, else to the end,
 * code blocks and all: inside a block that ends before the close (a `<div>`'s, a quote's),
 * GitHub's HTML parser takes everything after it for the comment, the close included, because
 * the markdown after the block is escaped (`--&gt;`). A declaration, a processing instruction or
 * CDATA left open ends, for that parser, at the next `>` of the HTML: the `<pre>` of a code
 * block at the latest.
 */

import { codeBlockLines } from './code-blocks.js';
import { hiddenTags, inHtmlBlock } from './html-tags.js';
import { linkTextCuts } from './link-text.js';
import { BLANK_LINE as BLANK, prefixLength } from './markdown-prefix.js';
import { mathCuts } from './math-text.js';
import { mermaidCuts } from './mermaid-text.js';
import { withoutCuts, type Cut } from './text-cuts.js';

/**
 * Characters that render as nothing (Unicode's Default_Ignorable_Code_Point: tags, variation
 * selectors, zero-width and bidi controls, fillers), and C0/C1 controls but tab and line breaks.
 */
const INVISIBLE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\p{Default_Ignorable_Code_Point}\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');
/** Numeric character references, and the named ones that stand for an invisible character. */
const ENTITY = /&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));|&(?:zwnj|zwj|shy|lrm|rlm);/g;

/**
 * The openings of raw HTML that renders as nothing, with what closes each. A `<!` or `</` not
 * followed by a letter (`<! x>`, `</ x>`) is a bogus comment only as raw HTML of an HTML block:
 * in a paragraph cmark-gfm escapes it.
 */
const HIDDEN_HTML = /<!--|<!\[CDATA\[|<\?|<![A-Za-z]|<!|<\/(?![A-Za-z])/g;
const BLOCK_ONLY = new Set(['<!', '</']);
const CLOSE: Readonly<Record<string, string>> = { '<!--': '-->', '<![CDATA[': ']]>', '<?': '>' };
/** HTML blocks that end only at their closing tag, blank lines or not (CommonMark's first kind). */
const RAW_BLOCK_OPEN = /^<(?:script|pre|style|textarea)(?:[\s>]|$)/i;
const RAW_BLOCK_CLOSE = /<\/(?:script|pre|style|textarea)>/i;
/** A link reference or footnote definition's start: `[label]:`, its label maybe on more lines. */
const DEFINITION_START = /^\[(?:[^\]\\]|\\.)*(?:\]:|$)/;
/** A line that may open a code fence: its fence, then the info string. */
const FENCE = /^(`{3,}|~{3,})/;
/** An info string's first word that may name a language: one short word, no markup. */
const LANGUAGE = /^[A-Za-z0-9][A-Za-z0-9_+#.-]{0,19}$/;
const LINE_BREAK = /\r\n|\r|\n/;

export function withoutInvisibleCharacters(text: string): string {
  return text.replace(INVISIBLE_ALL, '');
}

/** The markdown of an issue without what GitHub would not show of it. */
export function visibleMarkdown(markdown: string): string {
  const given: string[] = [];
  for (const run of runsOf(markdown.split(LINE_BREAK))) {
    if (run.code) {
      given.push(run.text);
      continue;
    }
    const { kept, restHidden } = withoutHiddenText(run.text);
    given.push(withoutInvisibleEntities(kept));
    if (restHidden) break;
  }
  // Invisible characters go last: one inside `--\u200b>` keeps a comment open on GitHub. They
  // render as nothing in code too (GitHub warns of bidi controls in files only:
  // github.blog/changelog/2021-10-31-warning-about-bidirectional-unicode-text).
  return withoutInvisibleCharacters(given.join('\n'));
}

/** The lines in runs: a code block's (its fences but for their language), or other text. */
function runsOf(lines: readonly string[]): Array<{ code: boolean; text: string }> {
  const kinds = codeBlockLines(lines);
  const runs: Array<{ code: boolean; lines: string[] }> = [];
  lines.forEach((line, i) => {
    const kind = kinds[i]!;
    const code = kind !== 'text';
    const given = kind === 'fence' ? languageOnly(line) : line;
    const last = runs.at(-1);
    if (last?.code === code) last.lines.push(given);
    else runs.push({ code, lines: [given] });
  });
  return runs.map(({ code, lines }) => ({ code, text: lines.join('\n') }));
}

function withoutFenceInfo(text: string): string {
  return text.split(LINE_BREAK).map(languageOnly).join('\n');
}

function languageOnly(line: string): string {
  let kept = '';
  let at = 0;
  for (const [start, end] of infoSpans(line)) {
    kept += line.slice(at, start);
    at = end;
  }
  return kept + line.slice(at);
}

/**
 * The spans of a fence's info string that nobody is shown: GitHub takes its first word for the
 * language it highlights the block as, and drops the rest. A language is kept, as a block's
 * colours show it, but only a short word with no markup in it: no sentence can hide there.
 */
function infoSpans(line: string): Array<[number, number]> {
  const prefix = prefixLength(line);
  const fence = FENCE.exec(line.slice(prefix))?.[1];
  if (fence === undefined) return [];
  const infoStart = prefix + fence.length;
  const [, space, word] = /^([ \t]*)([^ \t]*)/.exec(line.slice(infoStart))!;
  const wordStart = infoStart + space!.length;
  const wordEnd = wordStart + word!.length;
  return LANGUAGE.test(word!)
    ? [
        [infoStart, wordStart],
        [wordEnd, line.length],
      ]
    : [[infoStart, line.length]];
}

/**
 * The text (lines joined by line feeds) without what GitHub does not show of it, and whether
 * something left open hides all that follows it, code blocks included, as GitHub's HTML parser
 * finds no close in their escaped text (a comment's `-->`, a quoted attribute's `"`). Definitions
 * and info strings are looked for in the text as written and again without what is left out: an
 * opening that is no HTML on GitHub (`a <? b`) may take a footnote's start with it, or the start of
 * an info string (```` ```<!x> y ````) that then seems to name a language.
 */
function withoutHiddenText(text: string): { kept: string; restHidden: boolean } {
  const cuts: Cut[] = [];
  const lines = text.split('\n');
  const definitions = definitionLines(lines);
  let lineStart = 0;
  let keptBefore = false;
  lines.forEach((line, i) => {
    const next = lineStart + line.length + 1;
    // A line left out goes with the break before it, or after it while none was kept before.
    if (definitions[i])
      cuts.push({
        start: keptBefore ? lineStart - 1 : lineStart,
        end: Math.min(text.length, keptBefore ? next - 1 : next),
      });
    else keptBefore = true;
    for (const [start, end] of infoSpans(line))
      cuts.push({ start: lineStart + start, end: lineStart + end });
    lineStart = next;
  });
  const html = hiddenHtml(text);
  const shown = new Uint8Array(text.length).fill(1);
  for (const [start, end] of html.spans) {
    shown.fill(0, start, end);
    cuts.push({ start, end });
  }
  const tags = hiddenTags(text, (at) => shown[at] === 1);
  cuts.push(...tags.cuts, ...linkTextCuts(text), ...mermaidCuts(text), ...mathCuts(text));
  if (tags.restFrom !== undefined) cuts.push({ start: tags.restFrom, end: text.length });
  const kept = withoutCuts(text, cuts);
  return {
    kept: withoutFenceInfo(withoutDefinitions(kept)),
    restHidden: html.restHidden || tags.restFrom !== undefined,
  };
}

/** The spans of hidden HTML, and whether the last one is a comment that hides the rest. */
function hiddenHtml(text: string): { spans: Array<[number, number]>; restHidden: boolean } {
  const commentBlocks = commentBlockStarts(text);
  let inBlock: ((at: number) => boolean) | undefined;
  const spans: Array<[number, number]> = [];
  let cursor = 0;
  for (const match of text.matchAll(HIDDEN_HTML)) {
    if (match.index < cursor) continue;
    if (BLOCK_ONLY.has(match[0]) && !(inBlock ??= inHtmlBlock(text))(match.index)) continue;
    const end = hiddenEnd(text, match.index, match[0], commentBlocks);
    if (end === undefined)
      return { spans: [...spans, [match.index, text.length]], restHidden: true };
    spans.push([match.index, end]);
    // An opening that is text on GitHub (`# <?php`) hides nothing there: a comment opened before
    // its `>` is a comment still, and may hide more.
    const comment = text.indexOf('<!--', match.index + 1);
    cursor = match[0] !== '<!--' && comment >= 0 && comment < end ? comment : end;
  }
  return { spans, restHidden: false };
}

/**
 * Where the hidden construct opened at `at` ends (an index past it), or undefined for a comment
 * that hides the rest of the issue.
 */
function hiddenEnd(
  text: string,
  at: number,
  opening: string,
  commentBlocks: ReadonlySet<number>,
): number | undefined {
  const close = CLOSE[opening] ?? '>';
  const found = closeAfter(text, close, at + opening.length);
  // A declaration, a processing instruction or CDATA is a bogus comment to GitHub's HTML parser,
  // which ends at the first `>` of the raw HTML; the next block's tag has one, a code block's
  // `<pre>` among them.
  if (opening !== '<!--') return found < 0 ? text.length : found + close.length;
  if (found < 0) return undefined;
  if (!LINE_BREAK.test(text.slice(at, found))) return found + close.length;
  return commentBlocks.has(at) ? found + close.length : undefined;
}

/**
 * Where `close` first comes from `from`, but for a quote's `>` at a line's start, which is
 * markdown, not HTML, and so ends no bogus comment.
 */
function closeAfter(text: string, close: string, from: number): number {
  let lineStart = -1;
  let prefixEnd = -1;
  for (let found = text.indexOf(close, from); found >= 0; found = text.indexOf(close, found + 1)) {
    if (close !== '>') return found;
    const start = text.lastIndexOf('\n', found - 1) + 1;
    if (start !== lineStart) {
      lineStart = start;
      const lineEnd = text.indexOf('\n', start);
      prefixEnd = start + prefixLength(text.slice(start, lineEnd < 0 ? text.length : lineEnd));
    }
    if (found >= prefixEnd) return found;
  }
  return -1;
}

/**
 * The starts of the lines where a comment that runs over more lines opens an HTML block of its
 * own (CommonMark's second kind), which lasts to the line that closes it: in no container (at
 * the start of the line), and in no other HTML block, which ends at a blank line or, for the
 * first kind, at its closing tag. One pass over the text.
 */
function commentBlockStarts(text: string): Set<number> {
  const starts = new Set<number>();
  let inHtmlBlock = false;
  let inRawBlock = false;
  let offset = 0;
  for (const [line, lineBreak] of linesOf(text)) {
    if (!inHtmlBlock && !inRawBlock) starts.add(offset);
    const start = line.slice(prefixLength(line));
    if (inRawBlock) inRawBlock = !RAW_BLOCK_CLOSE.test(line);
    else if (RAW_BLOCK_OPEN.test(start)) inRawBlock = !RAW_BLOCK_CLOSE.test(line);
    if (BLANK.test(line)) inHtmlBlock = false;
    else if (start.startsWith('<') && !start.startsWith('<!--')) inHtmlBlock = true;
    offset += line.length + lineBreak.length;
  }
  return starts;
}

/** Each line with the break that ends it (none for the last). */
function linesOf(text: string): Array<[string, string]> {
  const parts = text.split(/(\r\n|\r|\n)/);
  const lines: Array<[string, string]> = [];
  for (let i = 0; i < parts.length; i += 2) lines.push([parts[i]!, parts[i + 1] ?? '']);
  return lines;
}

function withoutDefinitions(text: string): string {
  const lines = text.split(LINE_BREAK);
  const definitions = definitionLines(lines);
  return lines.filter((_, i) => !definitions[i]).join('\n');
}

/**
 * Every line from one that may open a definition (in any container) to the next blank line, and
 * the blank and indented lines after it, where a footnote goes on, with the lines after an
 * indented one up to a blank line, which may go on its paragraph lazily: nothing of a definition
 * is shown as text, and a footnote no reference uses is not shown at all.
 */
function definitionLines(lines: readonly string[]): boolean[] {
  const colonAhead = definitionColonAhead(lines);
  const definitions: boolean[] = [];
  let state: 'text' | 'definition' | 'after' = 'text';
  for (const [i, line] of lines.entries()) {
    const blank = BLANK.test(line);
    if (state === 'definition' && blank) state = 'after';
    // An indented line goes on a footnote, in a paragraph that lines after it may go on lazily.
    else if (state === 'after' && !blank) state = /^[ \t]/.test(line) ? 'definition' : 'text';
    // A label may run over lines: `]:` may come on a later line of the paragraph.
    if (state === 'text' && colonAhead[i] && DEFINITION_START.test(line.slice(prefixLength(line))))
      state = 'definition';
    definitions.push(state !== 'text');
  }
  return definitions;
}

/** For each line, whether `]:` comes on it or on a later one before the next blank line. */
function definitionColonAhead(lines: readonly string[]): boolean[] {
  const ahead = new Array<boolean>(lines.length).fill(false);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (BLANK.test(line)) continue;
    ahead[i] = line.includes(']:') || (ahead[i + 1] ?? false);
  }
  return ahead;
}

function withoutInvisibleEntities(text: string): string {
  return text.replace(ENTITY, (entity, hex: string | undefined, decimal: string | undefined) => {
    if (hex === undefined && decimal === undefined) return '';
    const code = hex !== undefined ? parseInt(hex, 16) : Number(decimal);
    // GitHub shows a reference to no character, or to NUL, as U+FFFD: visible.
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return entity;
    return INVISIBLE.test(String.fromCodePoint(code)) ? '' : entity;
  });
}
