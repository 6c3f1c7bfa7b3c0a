import { visibleMarkdown } from './visible-text.js';

/**
 * Quotes of left-out text (docs/lifecycle.md, "Vetted feedback"): a person with write access
 * who answers an outsider in a review thread often quotes them first (GitHub's "Quote reply"),
 * and a quote in the writer's comment would carry the outsider's words to the agent as the
 * writer's. A quote whose words are, in order, words of a comment vetting left out is replaced
 * by a line that says so; any other quote is the writer's and stays.
 *
 * Letters and digits, not markup, are compared: "Quote reply" writes GitHub's rendering of the
 * selection back as markdown, so emphasis, links, lists and entities may be spelt differently
 * from the outsider's source, and a selection may start or end anywhere in it. Where words break
 * is not compared either: markup GitHub renders as nothing (`IG<b></b>NORE`) splits a word in the
 * source and not in the quote, and an outsider can write it on purpose.
 */

export const QUOTE_LEFT_OUT =
  '> (a quote of a comment left out here: its author has no write access)';

const QUOTE_LINE = /^ {0,3}>/;
const LINE_BREAK = /\r\n|\r|\n/;
const WORD = /[\p{L}\p{N}]+/gu;
const TAG = /<[^<>]*>/g;
const REFERENCE = /&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/gi;

/** The text's letters and digits, in order, lower-cased: what it says, however it is marked up. */
function letters(text: string): string {
  const words = text.replace(TAG, ' ').replace(REFERENCE, decodeReference).match(WORD) ?? [];
  return words.join('').toLowerCase();
}

function decodeReference(reference: string, name: string): string {
  const lower = name.toLowerCase();
  const code = lower.startsWith('#x')
    ? parseInt(lower.slice(2), 16)
    : lower.startsWith('#')
      ? parseInt(lower.slice(1), 10)
      : NAMED[lower];
  return code !== undefined && code > 0 && code <= 0x10ffff
    ? String.fromCodePoint(code)
    : reference;
}

/** The named references an outsider could spell a letter with and a renderer shows as one. */
const NAMED: Record<string, number> = { amp: 38, lt: 60, gt: 62, quot: 34, apos: 39, nbsp: 160 };

/** The left-out comments, as the letters and digits their readers were shown. */
export function leftOutLetters(bodies: readonly string[]): string[] {
  return bodies.map((body) => letters(visibleMarkdown(body))).filter((l) => l.length > 0);
}

/**
 * `body` with each quote of `leftOut` (leftOutLetters) replaced by QUOTE_LEFT_OUT. A quote is a
 * run of lines starting with `>`, as "Quote reply" writes one; a line after it without `>` (a
 * lazy continuation, shown inside the quote) is the writer's own typing and stays.
 */
export function withoutQuotesOf(body: string, leftOut: readonly string[]): string {
  if (leftOut.length === 0) return body;
  const lines = body.split(LINE_BREAK);
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    if (!QUOTE_LINE.test(lines[i]!)) {
      out.push(lines[i++]!);
      continue;
    }
    const start = i;
    while (i < lines.length && QUOTE_LINE.test(lines[i]!)) i++;
    const quote = lines.slice(start, i);
    const quoted = letters(quote.map((line) => line.replace(/^(?: {0,3}>)+/, '')).join('\n'));
    if (quoted !== '' && leftOut.some((text) => text.includes(quoted))) out.push(QUOTE_LEFT_OUT);
    else out.push(...quote);
  }
  return out.join('\n');
}
