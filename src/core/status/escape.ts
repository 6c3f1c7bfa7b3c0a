// Everything rendered from task titles, ids, errors and notes is untrusted: planner output and
// issue text end up here. These helpers make sure such text stays text in its medium.

const LINE_BREAKS = /\r\n?|[\n\u2028\u2029]/g;
// Other C0/C1 controls and bidi overrides (which can make a cell read as something it is not).
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function flatten(text: string): string {
  return text.replace(LINE_BREAKS, ' ').replace(/\t/g, ' ').replace(INVISIBLE, '');
}

/** Cuts to at most `max` code points (never splitting a surrogate pair), marking the cut. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}

const CELL_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '|': '\\|',
  '`': '\\`',
  '[': '\\[',
  ']': '\\]',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
};

/**
 * One table cell's worth of plain text: no cell breaks (`|`, newlines), no code spans, no
 * HTML (so no `<!--` marker look-alikes, no `<details>`), no links or images. Backslashes are
 * escaped too, or `\|` in the input would turn our `\|` back into a cell break.
 */
export function escapeMarkdownCell(text: string): string {
  // A zero-width joiner after `@` keeps a title like "@org/team" from pinging anyone.
  return flatten(text)
    .replace(/[\\|`[\]&<>]/g, (c) => CELL_ESCAPES[c] ?? c)
    .replace(/@(?=[\w-])/g, '@\u200d');
}

const MERMAID_NAMED: Readonly<Record<string, string>> = {
  '"': '#quot;',
  '<': '#lt;',
  '>': '#gt;',
  '&': '#amp;',
};
// Letters, digits, spaces and punctuation that mean nothing inside a quoted Mermaid label.
// `#` is not here: Mermaid reads `#name;` as an entity. `%` is not: `%%{init}%%` directives
// are recognised anywhere in the text. `>` and `"` are not: `-->` edges and quote breakouts.
const MERMAID_SAFE = /^[\p{L}\p{N} _.,:;/()+?!'@=*-]$/u;

/**
 * A quoted Mermaid node label, e.g. `"task_001: Say #quot;hi#quot;"`. Anything outside a small
 * safe set becomes a Mermaid entity (`#quot;`, `#lt;`, `#96;`), which Mermaid turns into
 * text, never into markup or syntax. Whitespace runs collapse; long text is cut.
 */
export function mermaidLabel(text: string, maxLength = 100): string {
  const flat = truncate(flatten(text).replace(/ {2,}/g, ' ').trim(), maxLength);
  let out = '';
  for (const c of flat) {
    out += MERMAID_SAFE.test(c) ? c : (MERMAID_NAMED[c] ?? `#${c.codePointAt(0)};`);
  }
  return `"${out}"`;
}

/**
 * Trusted-shape markdown that may quote untrusted text (plan errors, notes): no HTML comment
 * may open (it could hide the rest or fake our marker), and a code fence left open is closed
 * so that it cannot swallow the rest of the comment.
 */
export function sanitizeMarkdownBlock(markdown: string): string {
  return closeOpenFence(neutraliseHtmlComments(markdown.replace(/\r\n?/g, '\n')));
}

export function neutraliseHtmlComments(text: string): string {
  return text.replaceAll('<!--', '&lt;!--');
}

function closeOpenFence(markdown: string): string {
  let open: string | undefined;
  for (const line of markdown.split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (!fence) continue;
    if (open === undefined) open = fence;
    else if (fence[0] === open[0] && fence.length >= open.length && line.trim() === fence) {
      open = undefined;
    }
  }
  return open === undefined ? markdown : `${markdown}\n${open}`;
}
