/**
 * The labelled issue as the person who labelled it could read it (docs/security.md, "Text nobody
 * saw"). A person with write access chooses an issue for the agents by reading it on GitHub,
 * which shows only part of what its author may have written: HTML comments, declarations,
 * processing instructions and CDATA (raw HTML that GitHub's sanitiser drops), link reference and
 * footnote definitions (no text of theirs is shown), a code fence's info string, and characters
 * that render as nothing (Unicode tag characters, which spell out ASCII, variation selectors,
 * zero-width and bidi controls, and the references that stand for them). An agent reads the raw
 * text: hidden there, an author's instructions would reach it without anybody having read them.
 * What a person sees only by hovering or opening (a link's address or title, an image's alt
 * text, a `<details>` section) stays.
 *
 * Where these rules and GitHub's renderer could disagree they leave text out: something GitHub
 * shows (an HTML comment in a code block, prose shaped like a definition) may be lost to the
 * agent, never the reverse. So code is not told apart from prose, and a comment that does not
 * close on its own line is taken out to its close only where it surely opens an HTML block of
 * its own, else to the end: inside a block that ends before the close (a `<div>`'s, a quote's),
 * GitHub's HTML parser takes everything after it for the comment, the close included, because
 * the markdown after the block is escaped (`--&gt;`).
 */

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

/** The openings of raw HTML that renders as nothing, with what closes each. */
const HIDDEN_HTML = /<!--|<!\[CDATA\[|<\?|<![A-Za-z]/g;
const CLOSE: Readonly<Record<string, string>> = { '<!--': '-->', '<![CDATA[': ']]>', '<?': '>' };

/** What may come before a block's first character on its line: indentation and containers. */
const PREFIX = /^(?:[ \t>]|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t]))*/;
/** HTML blocks that end only at their closing tag, blank lines or not (CommonMark's first kind). */
const RAW_BLOCK_OPEN = /^<(?:script|pre|style|textarea)(?:[\s>]|$)/i;
const RAW_BLOCK_CLOSE = /<\/(?:script|pre|style|textarea)>/i;
/** A link reference or footnote definition's start: `[label]:`, its label maybe on more lines. */
const DEFINITION_START = /^\[(?:[^\]\\]|\\.)*(?:\]:|$)/;
const BLANK = /^[ \t]*$/;
/** A line that may open a code fence: its fence, then the info string. */
const FENCE = /^(`{3,}|~{3,})/;
const LINE_BREAK = /\r\n|\r|\n/;

export function withoutInvisibleCharacters(text: string): string {
  return text.replace(INVISIBLE_ALL, '');
}

/** The markdown of an issue without what GitHub would not show of it. */
export function visibleMarkdown(markdown: string): string {
  // Invisible characters go last: one inside `--\u200b>` keeps a comment open on GitHub.
  return withoutInvisibleCharacters(
    withoutInvisibleEntities(withoutFenceInfo(withoutDefinitions(withoutHiddenHtml(markdown)))),
  );
}

/**
 * A code fence's info string is shown to nobody: GitHub keeps its first word as the class it
 * highlights by, and drops the rest. The language goes too: nothing tells a name from a word.
 */
function withoutFenceInfo(text: string): string {
  return text
    .split(LINE_BREAK)
    .map((line) => {
      const prefix = PREFIX.exec(line)![0];
      const fence = FENCE.exec(line.slice(prefix.length));
      return fence ? `${prefix}${fence[1]}` : line;
    })
    .join('\n');
}

function withoutHiddenHtml(text: string): string {
  const commentBlocks = commentBlockStarts(text);
  const kept: string[] = [];
  let cursor = 0;
  for (const match of text.matchAll(HIDDEN_HTML)) {
    if (match.index < cursor) continue;
    kept.push(text.slice(cursor, match.index));
    cursor = hiddenEnd(text, match.index, match[0], commentBlocks);
  }
  kept.push(text.slice(cursor));
  return kept.join('');
}

/** Where the hidden construct opened at `at` ends (an index past it). */
function hiddenEnd(
  text: string,
  at: number,
  opening: string,
  commentBlocks: ReadonlySet<number>,
): number {
  const close = CLOSE[opening] ?? '>';
  const found = text.indexOf(close, at + opening.length);
  if (found < 0) return text.length;
  const end = found + close.length;
  // A declaration, a processing instruction or CDATA is a bogus comment to GitHub's HTML parser,
  // which ends at the first `>` of the raw HTML; the next block's tag has one.
  if (opening !== '<!--') return end;
  if (!LINE_BREAK.test(text.slice(at, found))) return end;
  return commentBlocks.has(at) ? end : text.length;
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
    const start = line.slice(PREFIX.exec(line)![0].length);
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

/**
 * Every line from one that may open a definition (in any container) to the next blank line, and
 * the blank and indented lines after it, where a footnote goes on: nothing of a definition is
 * shown as text, and a footnote no reference uses is not shown at all.
 */
function withoutDefinitions(text: string): string {
  const lines = text.split(LINE_BREAK);
  const colonAhead = definitionColonAhead(lines);
  const kept: string[] = [];
  let state: 'text' | 'definition' | 'after' = 'text';
  for (const [i, line] of lines.entries()) {
    const blank = BLANK.test(line);
    if (state === 'definition' && blank) state = 'after';
    else if (state === 'after' && !blank && !/^[ \t]/.test(line)) state = 'text';
    // A label may run over lines: `]:` may come on a later line of the paragraph.
    if (
      state === 'text' &&
      colonAhead[i] &&
      DEFINITION_START.test(line.slice(PREFIX.exec(line)![0].length))
    )
      state = 'definition';
    if (state === 'text') kept.push(line);
  }
  return kept.join('\n');
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
