/**
 * Math GitHub may draw as nothing (docs/security.md, "Text nobody saw"). GitHub draws `$…$`,
 * `$$…$$`, `` $`…`$ `` and ```` ```math ```` blocks with MathJax, where `\phantom{…}`, a colour
 * like the page's, a box of no size or a comment (`%` to the line's end) hide what a person
 * would read, and a macro defined anywhere on the page may do any of it. Math is given as written
 * only when every command in it is one that draws what it names (math-commands.ts) and it holds
 * no comment; any other math is left out whole, a placeholder in its place.
 *
 * Where GitHub finds math is read widely: a ```` ```math ```` block as drawn-blocks.ts reads it,
 * and, in each paragraph with two `$` or more, all from its first `$` to its last, code spans
 * included; a paragraph with an odd number of `$$` runs on, over blank lines, to the next one with
 * an odd number (a display block may hold blank lines). The check reads the math as written and as
 * GitHub's markdown leaves it (`\\` for `\`, `&#92;` for `\`), and takes a named character
 * reference it does not know for one that may spell a command.
 */

import { drawnBlocks } from './drawn-blocks.js';
import { inHtmlBlock } from './html-tags.js';
import { lineStarts, paragraphsOf } from './markdown-prefix.js';
import { MATH_SYMBOLS, MATH_WORDS } from './math-commands.js';
import type { Cut } from './text-cuts.js';

/** What stands for math that is left out, so the agent knows something was there. */
export const MATH_LEFT_OUT = '[math left out]';

/** Named references cmark-gfm decodes here that stand for no command's character. */
const KNOWN_REFERENCES = new Set(['lt', 'gt', 'amp', 'quot', 'nbsp']);
const REFERENCE = /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{0,31}));/g;

/** The spans of the text's math that may draw something as nothing, each with a placeholder. */
export function mathCuts(text: string): Cut[] {
  const lines = text.split('\n');
  const starts = lineStarts(text);
  const regions = [
    ...drawnBlocks(lines, 'math').map(({ open, close }) => ({
      start: starts[open + 1] ?? text.length,
      end: close < lines.length ? starts[close]! - 1 : text.length,
    })),
    ...(text.includes('$') ? dollarRegions(text) : []),
  ];
  return regions
    .filter(({ start, end }) => start < end && !drawnAsWritten(text.slice(start, end)))
    .map(({ start, end }) => ({ start, end, replacement: MATH_LEFT_OUT }));
}

/** From each paragraph's first `$` to its last, display math run on over blank lines. */
function dollarRegions(text: string): Array<{ start: number; end: number }> {
  const regions: Array<{ start: number; end: number }> = [];
  const inBlock = inHtmlBlock(text);
  let open: number | undefined;
  for (const { start, end } of paragraphsOf(text)) {
    const paragraph = text.slice(start, end);
    const dollars = mathDollars(paragraph, !inBlock(start) && !inBlock(end));
    if (dollars.length === 0) continue;
    const first = dollars[0]!;
    const last = start + dollars.at(-1)! + 1;
    const displayOpens = [...paragraph.matchAll(/\${2,}/g)].reduce(
      (count, [run]) => count + Math.floor(run.length / 2),
      0,
    );
    if (open === undefined) {
      if (displayOpens % 2 === 1) open = start + first;
      else regions.push({ start: start + first, end: last });
    } else if (displayOpens % 2 === 1) {
      regions.push({ start: open, end: last });
      open = undefined;
    }
  }
  if (open !== undefined) regions.push({ start: open, end: text.length });
  return regions;
}

/**
 * The offsets of a paragraph's `$`s that may open or close math: all of them, but those in a code
 * span before any other `$` (math's own `` $`…`$ `` has one before), where nothing but code spans
 * can take a backtick (no tag, autolink, link address, definition or table may stand in the
 * paragraph, and it is not raw HTML). A shell's `$HOME` in code is no math.
 */
function mathDollars(paragraph: string, markdown: boolean): number[] {
  const dollars: number[] = [];
  if (!paragraph.includes('$')) return dollars;
  const spansSure = markdown && !/<|\]\(|\]:|^[ \t>]*\|?[ \t:|-]*-[ \t:|-]*$/m.test(paragraph);
  const runs = spansSure ? backtickRuns(paragraph) : [];
  // For each run, the next of the same length: the one that closes a code span it opens.
  const next = new Map<number, number>();
  const closes = runs
    .map((r, i) => i)
    .reverse()
    .map((i) => {
      const close = next.get(runs[i]!.length) ?? -1;
      next.set(runs[i]!.length, i);
      return close;
    })
    .reverse();
  let run = 0;
  for (let at = 0; at < paragraph.length; at++) {
    if (paragraph[at] === '$') dollars.push(at);
    if (dollars.length > 0 || run >= runs.length || runs[run]!.start !== at) continue;
    const { length, escaped } = runs[run]!;
    const close = closes[run]!;
    run++;
    if (escaped || close < 0) continue;
    at = runs[close]!.start + length - 1;
    run = close + 1;
  }
  return dollars;
}

/** The runs of backticks of a text, each with whether a backslash escapes its first. */
function backtickRuns(text: string): Array<{ start: number; length: number; escaped: boolean }> {
  return [...text.matchAll(/(\\*)(`+)/g)].map((match) => ({
    start: match.index + match[1]!.length,
    length: match[2]!.length,
    escaped: match[1]!.length % 2 === 1,
  }));
}

/** Whether the math draws all it holds, read as written and as GitHub's markdown leaves it. */
function drawnAsWritten(math: string): boolean {
  const unknownReference = [...math.matchAll(REFERENCE)].some(
    ([, , , name]) => name !== undefined && !KNOWN_REFERENCES.has(name),
  );
  return !unknownReference && commandsDraw(math) && commandsDraw(asRendered(math));
}

/** Whether the TeX holds no comment and only commands that draw what they name. */
function commandsDraw(tex: string): boolean {
  for (let at = 0; at < tex.length; at++) {
    const char = tex[at];
    if (char === '%') return false;
    if (char !== '\\') continue;
    const word = /^[A-Za-z]+/.exec(tex.slice(at + 1, at + 64))?.[0];
    if (word !== undefined) {
      if (!MATH_WORDS.has(word)) return false;
      at += word.length;
      continue;
    }
    const symbol = tex[at + 1];
    if (symbol === undefined) continue;
    if (!MATH_SYMBOLS.has(symbol) || (symbol === '\\' && tex[at + 2] === '[')) return false;
    at++;
  }
  return true;
}

/**
 * The text as cmark-gfm leaves it in one pass: a backslash before punctuation gives the
 * punctuation, a reference its character.
 */
function asRendered(text: string): string {
  return text.replace(
    /\\([!-/:-@[-`{-~])|&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(lt|gt|amp|quot|nbsp));/g,
    (_, escaped?: string, hex?: string, decimal?: string, name?: string) => {
      if (escaped !== undefined) return escaped;
      if (name !== undefined)
        return { lt: '<', gt: '>', amp: '&', quot: '"', nbsp: '\u00a0' }[name]!;
      const code = hex !== undefined ? parseInt(hex, 16) : Number(decimal);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
    },
  );
}
