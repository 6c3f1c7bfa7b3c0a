/**
 * Quotes in what people with write access wrote (docs/lifecycle.md, "Vetted feedback"). Only their
 * text may reach the agent, and a quote is words the writer carried in from somewhere: GitHub's
 * "Quote reply" copies an outsider's comment into a writer's as readily as a writer's. Whose words
 * they were cannot be told from what a send-back reads: the quoted comment may have been edited or
 * deleted by its author since, be in a resolved thread, past the threads read, in the PR's or the
 * issue's conversation, anywhere. So a quote is kept only when it is provably a writer's: what it
 * spells is found, in order, in what writers wrote in the threads and texts the same feedback is
 * made of (outside their own quotes), or in the diff hunk of a thread it gives (the agent's own
 * change and the base around it, in its tree and in the feedback already). Every other quote is
 * replaced by a line that says so: at worst the agent loses a reminder the writer can repeat.
 *
 * What is compared is what a text spells: every character but spaces, punctuation and symbols,
 * character references decoded, lower-cased. Markup is left aside ("Quote reply" writes back
 * GitHub's rendering of the selection, emphasis, links and lists spelt its own way, and a selection
 * may start or end anywhere); a tag's text and characters that render as nothing (zero-width, bidi,
 * Unicode tags spelling ASCII, variation selectors) are not, since the agent reads them: a quote
 * holding any is kept only when the writer's text holds them too.
 */

export const QUOTE_LEFT_OUT =
  '> (a quote left out here: its words are not among those people with write access wrote)';

const QUOTE_LINE = /^ {0,3}>/;
const LINE_BREAK = /\r\n|\r|\n/;
const SPACE_AND_MARKUP = /[\s\p{P}\p{S}]+/gu;
const REFERENCE = /&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/gi;

/** What the text spells, however it is marked up. */
function spelling(text: string): string {
  return text.replace(REFERENCE, decodeReference).replace(SPACE_AND_MARKUP, '').toLowerCase();
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

/** The named references a renderer shows as one character that markdown also writes plain. */
const NAMED: Record<string, number> = { amp: 38, lt: 60, gt: 62, quot: 34, apos: 39, nbsp: 160 };

/** The text without its quotes: what its writer typed. */
function outsideQuotes(text: string): string {
  return text
    .split(LINE_BREAK)
    .filter((line) => !QUOTE_LINE.test(line))
    .join('\n');
}

/**
 * What a feedback's quotes may be found in to be kept: `written`, the texts it gives as writers'
 * (each without its own quotes), and `diffHunks`, those of the threads it gives, as GitHub wrote
 * them.
 */
export function quoteEvidence(written: readonly string[], diffHunks: readonly string[]): string[] {
  return [...written.map(outsideQuotes), ...diffHunks]
    .map(spelling)
    .filter((spelt) => spelt.length > 0);
}

/**
 * `body` with each quote not found in `evidence` (quoteEvidence) replaced by QUOTE_LEFT_OUT. A
 * quote is a run of lines starting with `>`, as "Quote reply" writes one; a line after it without
 * `>` (a lazy continuation, shown inside the quote) is the writer's own typing and stays, and so
 * does a quote that spells nothing (`> ---`).
 */
export function withoutUnprovenQuotes(body: string, evidence: readonly string[]): string {
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
    const spelt = spelling(quote.join('\n'));
    if (spelt === '' || evidence.some((text) => text.includes(spelt))) out.push(...quote);
    else out.push(QUOTE_LEFT_OUT);
  }
  return out.join('\n');
}
