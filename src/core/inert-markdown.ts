/**
 * Untrusted text (task titles, reasons, feedback, logins quoted from comments) turned into
 * GitHub markdown that renders as exactly that text: no link, autolink, reference, mention,
 * emoji, math, HTML or formatting, and no way to open a block. Two layers, because GitHub has
 * two (see the README, "Untrusted text"):
 * - cmark-gfm parses the markdown: a backslash before ASCII punctuation makes it literal, which
 *   covers emphasis, code, links, images, tables, strikethrough and math (`$`); `<`, `>` and
 *   `&` become entities, so no HTML and no entity survives.
 * - GitHub then scans the rendered text (outside `<code>` and `<a>`) for `@login`,
 *   `@org/team`, `#12`, `GH-12`, `owner/repo#12`, commit SHAs, `:emoji:`, and cmark-gfm's
 *   autolink extension for `https://`, `www.` and e-mail addresses. A backslash is gone by
 *   then, so those are broken with an invisible word joiner (U+2060) where the pattern needs
 *   two characters to touch: a person reads the same characters, no pattern matches.
 */

/**
 * U+2060: invisible, no width, no line break, no emoji or bidi meaning. Not U+200D (the
 * zero-width joiner used before): that one is a Join_Control, a word character to
 * Unicode-aware patterns, and it glues emoji sequences (`#` and digits are emoji).
 */
export const WORD_JOINER = '\u2060';

const LINE_BREAKS = /\r\n?|[\n\u2028\u2029]/g;
// C0/C1 controls (tab and line breaks are handled apart), bidi marks, embeddings, overrides
// and isolates: each can make text read as something other than what it holds.
const INVISIBLE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// Every character cmark-gfm (with GitHub's extensions) gives inline meaning to. HTML's own
// three become entities, which read the same and keep raw `<` out of the markdown altogether.
const BACKSLASHED = new Set(['\\', '`', '*', '_', '[', ']', '~', '|', '$']);
const ENTITIES: Readonly<Record<string, string>> = { '<': '&lt;', '>': '&gt;', '&': '&amp;' };
const ALPHANUMERIC = /[\p{L}\p{N}]/u;
// What may follow `:` in `https://` or an `:emoji:` shortcode.
const AFTER_COLON = /[/\p{L}\p{N}_+-]/u;
const LETTER = /\p{L}/u;
const DIGIT = /[0-9]/;
// A commit SHA is linked from 7 hex digits on; shorter runs are never one.
const HEX_RUN = /[0-9a-f]{7,}/gi;
const SHA_PIECE = /[0-9a-f]{1,6}/gi;

/** Line breaks and tabs become spaces; invisible controls and bidi overrides go. */
export function flattenLine(text: string): string {
  return stripInvisible(text.replace(LINE_BREAKS, ' ').replace(/\t/g, ' '));
}

export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/** One line of markdown (a table cell, a list item, a sentence) that reads as `text`. */
export function inertInline(text: string): string {
  return guardLineStart(escapeInlineText(flattenLine(text).trimStart()));
}

/**
 * Multi-line text as markdown lines that each read as written, for a blockquote or a
 * paragraph: runs of blank lines become one, indentation goes (it would make code).
 */
export function inertLines(text: string): string[] {
  const lines = stripInvisible(text.replace(/\t/g, ' '))
    .split(LINE_BREAKS)
    .map((line) => inertInline(line));
  return lines.filter((line, i) => line !== '' || (i > 0 && lines[i - 1] !== ''));
}

/**
 * The character-level escaping of inertInline without its line handling: the caller keeps
 * the text on one line and away from the start of a block.
 */
export function escapeInlineText(text: string): string {
  const chars = Array.from(breakShaLikeRuns(text));
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const next = chars[i + 1] ?? '';
    if (
      (c === 'w' || c === 'W') &&
      chars
        .slice(i, i + 4)
        .join('')
        .toLowerCase() === 'www.'
    ) {
      out += `${chars.slice(i, i + 3).join('')}${WORD_JOINER}`;
      i += 2;
      continue;
    }
    out += ENTITIES[c] ?? (BACKSLASHED.has(c) && !intraword(chars, i) ? `\\${c}` : c);
    if (c === '@' || c === '#') out += WORD_JOINER;
    else if (c === ':' && AFTER_COLON.test(next)) out += WORD_JOINER;
    // `GH-12`, and the `PREFIX-12` of a repository's own autolinks.
    else if (c === '-' && DIGIT.test(next) && LETTER.test(chars[i - 1] ?? '')) out += WORD_JOINER;
  }
  return out;
}

/** `task_001`: an underscore inside a word can neither open nor close emphasis. */
function intraword(chars: readonly string[], i: number): boolean {
  return (
    chars[i] === '_' &&
    ALPHANUMERIC.test(chars[i - 1] ?? '') &&
    ALPHANUMERIC.test(chars[i + 1] ?? '')
  );
}

function breakShaLikeRuns(text: string): string {
  return text.replace(HEX_RUN, (run) => (run.match(SHA_PIECE) ?? [run]).join(WORD_JOINER));
}

/**
 * Text at the start of a line must not open a block: a list item (`-`, `+`, `1.`), a setext
 * underline or thematic break (`===`, `---`). `#`, `>`, `*`, `_`, `` ` ``, `~`, `<` and `|` are
 * already escaped or joined by escapeInlineText.
 */
function guardLineStart(line: string): string {
  return line.replace(/^([-+=])/, '\\$1').replace(/^(\d{1,9})([.)])/, '$1\\$2');
}

// GitHub's skip instructions ("Skipping workflow runs"), in any case and spacing to be safe.
const SKIP_INSTRUCTION =
  /\[(?=\s*(?:skip\s+ci|ci\s+skip|no\s+ci|skip\s+actions|actions\s+skip)\s*\])/gi;

/**
 * Untrusted text in plain text GitHub scans for references but does not render as markdown: a
 * commit message, a pull request's title. One line, with the word joiner after every `#`, in
 * `GH-12` and in `://`, so it names no issue, pull request or link. Above all no closing keyword
 * (`Fixes #3`, `closes octo/repo#4`, `resolves <issue URL>`) survives: a merge puts the message
 * on the base branch, where GitHub closes the issues such a keyword names — another run's issue
 * among them, which cancels that run. Nor does a skip instruction (`[skip ci]`): GitHub runs no
 * `push` or `pull_request` workflow for a commit whose message holds one, so the agent's change
 * (or, through a squash commit's title, the base) would go untested, and no check counts as green.
 */
export function inertPlainText(text: string): string {
  return flattenLine(text)
    .replaceAll('#', `#${WORD_JOINER}`)
    .replace(/\b(GH)-(?=[0-9])/gi, `$1-${WORD_JOINER}`)
    .replaceAll('://', `:${WORD_JOINER}//`)
    .replace(SKIP_INSTRUCTION, `[${WORD_JOINER}`);
}

// GitHub draws a colour swatch beside a code span that holds only a colour (`#0969DA`,
// `rgb(9, 105, 218)`, `hsl(…)`: "Supported color models").
const COLOUR = /^(?:#[0-9a-f]{3,8}|(?:rgb|hsl)a?\(.*\))$/i;

/**
 * A code span's text that GitHub draws no swatch for: a word joiner after the first character
 * of a colour keeps it text that reads the same.
 */
export function breakColour(text: string): string {
  const colour = text.trim();
  if (!COLOUR.test(colour)) return text;
  const at = text.indexOf(colour) + 1;
  return `${text.slice(0, at)}${WORD_JOINER}${text.slice(at)}`;
}

/**
 * `<!--` that can open no HTML comment, in prose and in code alike: a marker look-alike
 * (`<!-- agent-coordinator:… -->`) in text we echo never reads as one of our markers.
 */
export function neutraliseHtmlComments(text: string): string {
  return text.replaceAll('<!--', `<${WORD_JOINER}!--`);
}
