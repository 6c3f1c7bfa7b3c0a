/**
 * What a person reading an issue on GitHub sees of cmark-gfm's HTML (docs/security.md, "Text
 * nobody saw"), as the property tests of test/rendering/visible-text.test.ts model it, apart from
 * the rules they test:
 * - the HTML standard's tokenizer splits text from markup: a comment runs to `-->` (or the end),
 *   a bogus comment (`<!x`, `<?`, `</ x`) to the next `>`, a tag to its `>` but inside a quoted
 *   attribute value, and a quote opens a value only after `=`;
 * - of a tag, only a title, a link's address and an image's source are seen (by hovering, or as
 *   the image);
 * - a Mermaid block draws no comment, directive or accessible title or description (Mermaid's own
 *   preprocessing);
 * - math drawn with a command that hides (`\phantom`, a colour, a box of no size) or a comment
 *   shows nothing of itself: math is read in a ```` ```math ```` block, and between `$`s, paired
 *   from the left, in a text node or in a block's text with its code spans (where GitHub finds it
 *   is not documented: either reading may be GitHub's).
 */

const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;
/** Commands that draw what they hold as nothing, or hide it. */
const HIDING_MATH = /\\(?:[hv]?phantom|color|textcolor|colorbox|smash|[lr]lap|mathclap)\b|%/;
/** Inline elements: their text is in the same block as the text around them. */
const INLINE = new Set(
  'a em strong del s code img span b i sub sup kbd ins mark small abbr q samp var tt u br'.split(
    ' ',
  ),
);

type Token =
  | { kind: 'text'; text: string }
  | { kind: 'tag'; name: string; closing: boolean; attributes: Map<string, string> };

export function decode(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, name: string) => {
    if (name[0] !== '#') return ({ lt: '<', gt: '>', amp: '&', quot: '"' } as const)[name] ?? whole;
    const code = /^#[xX]/.test(name) ? parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
  });
}

/** The text a person reads of rendered HTML, and what they see by hovering, space-separated. */
export function shownText(html: string): string {
  const shown: string[] = [];
  // The text of each block (split at tags that are not inline), each piece in code or not.
  const blocks: Array<Array<{ text: string; code: boolean }>> = [[]];
  let code = 0;
  let pre = 0;
  let drawn: string | undefined;
  for (const token of tokenize(html)) {
    if (token.kind === 'tag') {
      shown.push(...hovered(token));
      if (token.name === 'pre') pre += token.closing ? -1 : 1;
      if (token.name === 'code') {
        code += token.closing ? -1 : 1;
        const language = /language-(\S+)/.exec(token.attributes.get('class') ?? '')?.[1];
        drawn = token.closing ? undefined : language?.toLowerCase();
      }
      if (!INLINE.has(token.name)) blocks.push([]);
      continue;
    }
    const text = decode(token.text);
    if (pre > 0 && code > 0) shown.push(drawnText(drawn, text));
    else blocks.at(-1)!.push({ text, code: code > 0 });
  }
  for (const block of blocks) shown.push(seenOfBlock(block));
  return ` ${shown.join(' ')} `.replace(INVISIBLE, '');
}

/** What a code block shows: Mermaid and math draw their text, other code shows it. */
function drawnText(language: string | undefined, text: string): string {
  if (language === 'mermaid') return mermaidDrawn(text);
  if (language === 'math') return HIDING_MATH.test(text) ? '' : text;
  return text;
}

/**
 * The text of a block a person reads: math is found in each text node (GitHub's finder in 2022
 * read the rendered text), or in the block's text with its code spans, between `$`s outside them
 * (a parser of the markdown would): what either reading hides is not read.
 */
function seenOfBlock(block: ReadonlyArray<{ text: string; code: boolean }>): string {
  const whole = block.map(({ text }) => text).join('');
  // A parser reads a code span before a `$` as code: its `$` opens no math (`` `$` ``).
  const delimiters = block.map(({ text, code }) => (code ? text.replaceAll('$', ' ') : text));
  const hidden = new Uint8Array(whole.length);
  hideMath(whole, hidden, 0, delimiters.join(''));
  let offset = 0;
  const seen = block.map(({ text, code }) => {
    if (!code) hideMath(text, hidden, offset);
    const start = offset;
    offset += text.length;
    return [...text.matchAll(/[\s\S]/g)]
      .map(([char], i) => (hidden[start + i] ? ' ' : char))
      .join('');
  });
  return seen.join(' ');
}

/** Marks the `$…$` and `$$…$$` spans of the text, paired from the left, that hide. */
function hideMath(text: string, hidden: Uint8Array, offset: number, delimiters = text): void {
  for (const { 0: span, index } of delimiters.matchAll(/\$\$[\s\S]*?\$\$|\$[\s\S]*?\$/g)) {
    const math = text.slice(index, index + span.length);
    if (HIDING_MATH.test(math)) hidden.fill(1, offset + index, offset + index + math.length);
  }
}

/** What Mermaid draws of a diagram's text. */
function mermaidDrawn(text: string): string {
  return text
    .replace(/%%\{[\s\S]*?\}%%/g, '')
    .replace(/%%[^\n]*/g, '')
    .replace(/accDescr\s*\{[^}]*\}?/g, '')
    .replace(/acc(?:Title|Descr)\s*:[^\n]*/g, '');
}

/** What a person sees of a tag by hovering, or as the image. */
function hovered(tag: Extract<Token, { kind: 'tag' }>): string[] {
  if (tag.closing) return [];
  const seen = [tag.attributes.get('title')];
  if (tag.name === 'a') seen.push(tag.attributes.get('href'));
  if (tag.name === 'img') seen.push(tag.attributes.get('src'));
  return seen.filter((value) => value !== undefined).map(decode);
}

/** The HTML standard's tokenizer, as far as what is text and what is markup. */
function tokenize(html: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < html.length) {
    if (html.startsWith('<!--', i)) {
      if (html.startsWith('<!-->', i) || html.startsWith('<!--->', i)) {
        i = html.indexOf('>', i) + 1;
        continue;
      }
      const ends = [html.indexOf('-->', i + 4), html.indexOf('--!>', i + 4)].filter((e) => e >= 0);
      const end = Math.min(...ends);
      i = ends.length === 0 ? html.length : end + (html[end + 2] === '!' ? 4 : 3);
      continue;
    }
    if (/^<(?:[!?]|\/[^A-Za-z])/.test(html.slice(i, i + 2))) {
      const end = html.indexOf('>', i + 2);
      i = end < 0 ? html.length : end + 1;
      continue;
    }
    if (/^<\/?[A-Za-z]/.test(html.slice(i, i + 3))) {
      const [tag, end] = readTag(html, i);
      if (tag) tokens.push(tag);
      i = end;
      continue;
    }
    const next = html.indexOf('<', i + 1);
    const end = next < 0 ? html.length : next;
    tokens.push({ kind: 'text', text: html.slice(i, end) });
    i = end;
  }
  return tokens;
}

/** The tag at `at` and where it ends; no tag if the HTML ends first (the tag is dropped). */
function readTag(html: string, at: number): [Token | undefined, number] {
  let i = at + 1;
  const closing = html[i] === '/';
  if (closing) i++;
  const nameStart = i;
  while (i < html.length && !/[\t\n\f\r />]/.test(html[i]!)) i++;
  const name = html.slice(nameStart, i).toLowerCase();
  const attributes = new Map<string, string>();
  for (;;) {
    while (i < html.length && /[\t\n\f\r /]/.test(html[i]!)) i++;
    if (i >= html.length) return [undefined, html.length];
    if (html[i] === '>') return [{ kind: 'tag', name, closing, attributes }, i + 1];
    const start = i++;
    while (i < html.length && !/[\t\n\f\r />=]/.test(html[i]!)) i++;
    const attribute = html.slice(start, i).toLowerCase();
    while (i < html.length && /[\t\n\f\r ]/.test(html[i]!)) i++;
    let value = '';
    if (html[i] === '=') {
      i++;
      while (i < html.length && /[\t\n\f\r ]/.test(html[i]!)) i++;
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, i + 1);
        if (close < 0) return [undefined, html.length];
        value = html.slice(i + 1, close);
        i = close + 1;
      } else {
        const valueStart = i;
        while (i < html.length && !/[\t\n\f\r >]/.test(html[i]!)) i++;
        value = html.slice(valueStart, i);
      }
    }
    if (!attributes.has(attribute)) attributes.set(attribute, value);
  }
}
