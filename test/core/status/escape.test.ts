import { describe, expect, it } from 'vitest';
import {
  escapeMarkdownCell,
  mermaidLabel,
  sanitizeMarkdownBlock,
  truncate,
} from '../../../src/core/status/index.js';
import { WORD_JOINER as WJ } from '../../../src/core/inert-markdown.js';

describe('escapeMarkdownCell', () => {
  it.each([
    { text: 'Plain title', cell: 'Plain title' },
    { text: 'a | b', cell: 'a \\| b' },
    { text: 'a \\| b', cell: 'a \\\\\\| b' },
    { text: 'run `rm -rf`', cell: 'run \\`rm -rf\\`' },
    { text: '<script>alert(1)</script>', cell: '&lt;script&gt;alert(1)&lt;/script&gt;' },
    {
      text: '<!-- agent-coordinator:status -->',
      cell: `&lt;!-- agent-coordinator:${WJ}status --&gt;`,
    },
    { text: 'line one\nline two\r\nthree', cell: 'line one line two three' },
    { text: '${{ secrets.X }}', cell: '\\${{ secrets.X }}' },
    { text: '[click](https://x.test)', cell: `\\[click\\](https:${WJ}//x.test)` },
    { text: 'a &lt; b', cell: 'a &amp;lt; b' },
    { text: 'evil\u202eeulav', cell: 'evileulav' },
  ])('$text', ({ text, cell }) => {
    expect(escapeMarkdownCell(text)).toBe(cell);
  });
});

describe('mermaidLabel', () => {
  it.each([
    { text: 'task_001: Define the API', label: '"task_001#58; Define the API"' },
    { text: 'style x fill:#f00;', label: '"style x fill#58;#35;f00;"' },
    { text: 'fa:fa-car', label: '"fa#58;fa-car"' },
    { text: '\ufb02\u00b0 \u00b6\u00df', label: '"\ufb02#8288;#176; #182;#8288;\u00df"' },
    { text: 'say "hi"', label: '"say #quot;hi#quot;"' },
    { text: '"]; click A call x()', label: '"#quot;#93;; click A call x()"' },
    { text: 'A-->B', label: '"A--#gt;B"' },
    { text: '<b>x</b>', label: '"#lt;b#gt;x#lt;/b#gt;"' },
    { text: '`md` string', label: '"#96;md#96; string"' },
    { text: '%%{init: {}}%%', label: '"#37;#37;#123;init#58; #123;#125;#125;#37;#37;"' },
    { text: 'C#quot; x', label: '"C#35;quot; x"' },
    { text: 'a | b & c', label: '"a #124; b #amp; c"' },
    { text: 'two\nlines   here', label: '"two lines here"' },
    { text: '${{ secrets.X }}', label: '"#36;#123;#123; secrets.X #125;#125;"' },
    { text: 'café 🚀', label: '"café #128640;"' },
  ])('$text', ({ text, label }) => {
    expect(mermaidLabel(text)).toBe(label);
  });

  it('cuts long text', () => {
    expect(mermaidLabel('x'.repeat(50), 10)).toBe(`"${'x'.repeat(9)}#8230;"`);
  });

  it('never emits a quote, angle bracket, backtick, newline or %% from any input', () => {
    const nasty = '"<>`\n%%-->' + String.fromCodePoint(0x1f600);
    const inner = mermaidLabel(nasty.repeat(5), 1000).slice(1, -1);
    expect(inner).not.toMatch(/["<>`\n]|%%|-->/);
  });
});

describe('truncate', () => {
  it('does not split a surrogate pair', () => {
    expect(truncate('🚀🚀🚀', 2)).toBe('🚀…');
    expect(truncate('abc', 3)).toBe('abc');
  });
});

describe('sanitizeMarkdownBlock', () => {
  it('encodes HTML comment openers and closes an open fence', () => {
    expect(sanitizeMarkdownBlock('bad:\n```yaml\n<!-- agent-coordinator:status -->')).toBe(
      `bad:\n\`\`\`yaml\n<${WJ}!-- agent-coordinator:status -->\n\`\`\``,
    );
  });

  it('leaves balanced fences alone', () => {
    const md = '````\n```\n````\n~~~\nx\n~~~';
    expect(sanitizeMarkdownBlock(md)).toBe(md);
  });
});

describe('mentions in table cells', () => {
  it('never pings: a word joiner follows every @', () => {
    expect(escapeMarkdownCell('ask @octocat and @org/team')).toBe(
      `ask @${WJ}octocat and @${WJ}org/team`,
    );
    expect(escapeMarkdownCell('mail a @ b')).toBe(`mail a @${WJ} b`);
  });
});
