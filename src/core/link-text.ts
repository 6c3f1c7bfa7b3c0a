/**
 * Text of images and links that GitHub does not show (docs/security.md, "Text nobody saw"): an
 * image's description, its alt text, which a browser draws only in place of an image that fails
 * to load (a transparent pixel never does), and a reference link's label: `[text][label]` shows
 * `text`, linked to the address of the definition the label names, so the label is nowhere, not
 * even on hovering.
 *
 * Where an image's description ends is where CommonMark's bracket matching ends it: at the `]`
 * that balances the `[`s after `![`, a backslash escaping one. A code span, a tag or an autolink
 * may take a bracket out of that count, so where one may stand in it (after a backtick or a
 * `<`), the description is taken to run to the last `]` of its paragraph.
 */

import { paragraphsOf } from './markdown-prefix.js';
import type { Cut } from './text-cuts.js';

/** The spans of the text's image descriptions and reference labels. */
export function linkTextCuts(text: string): Cut[] {
  const cuts: Cut[] = [];
  if (!text.includes('![') && !text.includes('][')) return cuts;
  for (const paragraph of paragraphsOf(text)) {
    const within = text.slice(paragraph.start, paragraph.end);
    const lastClose = within.lastIndexOf(']');
    const special = nextSpecial(within);
    const closes = matchingBrackets(within);
    for (const { index } of within.matchAll(/!\[/g)) {
      const start = index + 2;
      const close = closes[index + 1]!;
      const end = close < 0 || special[start]! < close ? lastClose : close;
      if (end >= start) cuts.push({ start: paragraph.start + start, end: paragraph.start + end });
    }
    for (const { index } of within.matchAll(/\]\[/g)) {
      const start = index + 2;
      const end = labelClose(within, start);
      if (end !== undefined)
        cuts.push({ start: paragraph.start + start, end: paragraph.start + end });
    }
  }
  return cuts;
}

/** For each offset, where the next backtick or `<` is (the length if none). */
function nextSpecial(text: string): Int32Array {
  const next = new Int32Array(text.length + 1).fill(text.length);
  for (let at = text.length - 1; at >= 0; at--)
    next[at] = text[at] === '`' || text[at] === '<' ? at : next[at + 1]!;
  return next;
}

/**
 * For each offset of a `[`, the offset of the `]` that balances it (-1 if none), escapes passed
 * over: CommonMark's matching when nothing takes a bracket out of it.
 */
function matchingBrackets(text: string): Int32Array {
  const closes = new Int32Array(text.length).fill(-1);
  const open: number[] = [];
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '\\') at++;
    else if (char === '[') open.push(at);
    else if (char === ']' && open.length > 0) closes[open.pop()!] = at;
  }
  return closes;
}

/** A link label's `]`: the first unescaped one, if no unescaped `[` comes first. */
function labelClose(text: string, from: number): number | undefined {
  for (let at = from; at < text.length; at++) {
    const char = text[at];
    if (char === '\\') at++;
    else if (char === '[') return undefined;
    else if (char === ']') return at;
  }
  return undefined;
}
