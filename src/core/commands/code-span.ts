import { breakColour, neutraliseHtmlComments, stripInvisible } from '../inert-markdown.js';

const MAX_LENGTH = 60;

/**
 * Wraps commenter text in an inline code span that renders it literally: GitHub neither
 * links, mentions nor references anything inside `<code>`, and cmark-gfm renders its HTML and
 * emphasis as text. Its own backticks cannot end the span early, and a `<!--` in it never
 * reads as one of our markers. Whitespace runs become one space (a code span shows newlines
 * as spaces anyway) and long text is cut.
 */
export function codeSpan(raw: string, maxLength = MAX_LENGTH): string {
  let text = stripInvisible(raw).replace(/\s+/g, ' ').trim();
  if (text.length > maxLength) {
    let cut = maxLength - 1;
    // Never split a surrogate pair.
    if (isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
    text = `${text.slice(0, cut)}…`;
  }
  if (text === '') return '` `';
  text = neutraliseHtmlComments(breakColour(text));
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
