import { inertInline } from './src/core/inert-markdown.js';
import { execFileSync } from 'node:child_process';
const cases = ['see https://evil.com now', 'x www.evil.com y', 'WWW.EVIL.COM', 'a alice@example.com', 'mailto:x@y.com', 'xmpp:foo@bar.com', '#1 GH-3 octo/repo#2 owner/repo@a5c3785ed8d6a358', '@alice @org/team', '**bold** _it_ ~~s~~ ~one~', '<img src=x> <!-- c --> <b>', '`code` ``x``', 'a | b \\| c \\', '&amp; &copy; &#64;', 'ftp://x.com', '$x^2$ $$y$$', ':smile: :+1:', '[l](http://x) ![i](y) [^1] [ ] [x]', '- item', '1. item', '=== ', '# h', '> q', 'a\\*b', '\\'];
for (const c of cases) {
  const md = `| a |\n|---|\n| ${inertInline(c)} |\n\n${inertInline(c)}\n`;
  const html = execFileSync('cmark-gfm', ['-e','table','-e','strikethrough','-e','autolink','-e','tagfilter','-e','tasklist'], { input: md }).toString();
  console.log(JSON.stringify(c), '=>', html.replace(/\n/g, ' ').replace(/\u2060/g, '⁀'));
}
