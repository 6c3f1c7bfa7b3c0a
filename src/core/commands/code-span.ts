const MAX_LENGTH = 60;

/**
 * Wraps commenter text in an inline code span that renders it literally: no mentions, no
 * HTML, no emphasis, and no way for its own backticks to end the span early. Whitespace runs
 * become one space (a code span shows newlines as spaces anyway) and long text is cut.
 */
export function codeSpan(raw: string): string {
  let text = raw.replace(/\s+/g, ' ').trim();
  if (text.length > MAX_LENGTH) {
    let cut = MAX_LENGTH - 1;
    // Never split a surrogate pair.
    if (isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
    text = `${text.slice(0, cut)}…`;
  }
  if (text === '') return '` `';
  let longestRun = 0;
  for (const run of text.match(/`+/g) ?? []) longestRun = Math.max(longestRun, run.length);
  const fence = '`'.repeat(longestRun + 1);
  // CommonMark strips one space from each side, which lets the text start or end with `.
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
