/**
 * Untrusted text as it reaches the App's comments and check runs (task titles, veto reasons,
 * feedback, GitHub's messages): each must read exactly as written and stay inert.
 */
export const HOSTILE_TEXT: ReadonlyArray<readonly [name: string, text: string]> = [
  ['https URL', 'see https://evil.example/x?a=1 now'],
  ['http URL after a digit', 'v1http://evil.example'],
  ['ftp URL', 'ftp://evil.example/file'],
  ['www. link', 'visit www.evil.example'],
  ['upper-case WWW.', 'visit WWW.EVIL.EXAMPLE'],
  ['e-mail address', 'mail alice@example.com'],
  ['mailto:', 'mailto:alice@example.com'],
  ['xmpp:', 'xmpp:alice@example.com'],
  ['issue reference', 'fixes #1 and #23'],
  ['GH- reference', 'GH-3 and gh-4'],
  ['cross-repo reference', 'see octo/repo#2'],
  ['custom autolink prefix', 'JIRA-123'],
  ['full SHA', 'a5c3785ed8d6a35868bc169f07e40e889087fd2e'],
  ['short SHA', 'reverts a5c3785'],
  ['digits that could be a SHA', 'build 20250301'],
  ['owner/repo@SHA', 'octo/repo@a5c3785ed8d6a35868bc169f07e40e889087fd2e'],
  ['user@SHA', 'jlord@a5c3785'],
  ['mention', 'ask @alice'],
  ['team mention', 'ask @org/team'],
  ['bold', '**bold** and __bold__'],
  ['italic', '_it_ and *it*'],
  ['strikethrough', '~~s~~ and ~t~'],
  ['image tag', '<img src=x onerror=alert(1)>'],
  ['HTML comment', '<!-- hidden --> after'],
  ['our plan marker', '<!-- agent-coordinator:plan run_id=1 -->'],
  ['our status marker', '<!-- agent-coordinator:status -->'],
  ['details', '<details><summary>open me'],
  ['script', '<script>alert(1)</script>'],
  ['backticks', '`code` ``two`` ```three```'],
  ['pipes', 'a | b \\| c ||'],
  ['backslashes', 'C:\\path\\ \\* \\'],
  ['newlines', 'line one\nline two\r\nthree'],
  ['HTML entities', '&amp; &lt;b&gt; &#64;alice &#x3C;i&#x3E; &copy;'],
  ['RTL override', 'abc\u202edcba\u202c end'],
  ['markdown link and image', '[click](https://evil.example) ![i](https://evil.example/i.png)'],
  ['angle-bracket autolinks', '<https://evil.example> <alice@example.com>'],
  ['footnote and task box', '[^1] [ ] [x]'],
  ['math', '$x^2$ and $$y$$'],
  ['emoji shortcodes', ':smile: :+1:'],
  ['heading', '# heading'],
  ['list item', '- item'],
  ['ordered list item', '1. item'],
  ['blockquote', '> quoted'],
  ['setext underline', '==='],
  ['thematic break', '---'],
  ['colon then hash', 'style x fill:#f00;'],
  ['non-ASCII', 'café 名前 🚀 ﬂ° ¶ß'],
  ['very long', `${'long '.repeat(80)}@alice #1`],
];

/** The text a person should read: line breaks as spaces, bidi overrides and controls gone. */
export function asRead(text: string): string {
  return text
    .replace(/\r\n?|\n/g, ' ')
    .replace(/[\u202a-\u202e\u2066-\u2069]/g, '')
    .trim();
}

/** `shown` is `expected`, or a prefix of it cut with `…`. */
export function readsAs(shown: string, expected: string): boolean {
  if (shown === expected) return true;
  return shown.endsWith('…') && expected.startsWith(shown.slice(0, -1));
}
