import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { visibleMarkdown } from '../../src/core/visible-text.js';
import { CMARK_GFM } from './cmark-gfm.js';

/**
 * docs/security.md, "Text nobody saw": nothing the labelled issue hides on GitHub reaches the
 * agent. GitHub renders in two steps: cmark-gfm turns the markdown into HTML (raw HTML passed
 * through, markdown text escaped), then an HTML parser reads that HTML for its sanitiser, and
 * comments and bogus comments (`<!X …>`, `<?…>`, `<![CDATA[…`) show nothing. Both are modelled
 * here: cmark-gfm itself, with GitHub's extensions and footnotes, then the HTML tokenizer's
 * rules for what is text (an unclosed comment runs to the end; a bogus one to the next `>`).
 */

function renderGfm(markdown: string): string {
  const extensions = ['table', 'strikethrough', 'autolink', 'tagfilter', 'tasklist', 'footnotes'];
  const result = spawnSync(CMARK_GFM, ['--unsafe', ...extensions.flatMap((e) => ['-e', e])], {
    input: markdown,
    encoding: 'utf8',
  });
  if (result.error || result.status !== 0) throw new Error(`${CMARK_GFM} failed`);
  return result.stdout;
}

const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

function decode(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, name: string) => {
    if (name[0] !== '#') return ({ lt: '<', gt: '>', amp: '&', quot: '"' } as const)[name] ?? whole;
    const code = /^#[xX]/.test(name) ? parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
  });
}

/** The text of rendered HTML a person reads, as HTML's tokenizer splits it from markup. */
function shownText(html: string): string {
  let shown = '';
  let i = 0;
  while (i < html.length) {
    if (html.startsWith('<!--', i)) {
      if (html.startsWith('<!-->', i) || html.startsWith('<!--->', i)) {
        i = html.indexOf('>', i) + 1;
        continue;
      }
      const ends = [html.indexOf('-->', i + 4), html.indexOf('--!>', i + 4)].filter((e) => e >= 0);
      i =
        ends.length === 0
          ? html.length
          : Math.min(...ends) + (html[Math.min(...ends) + 2] === '!' ? 4 : 3);
      continue;
    }
    if (/^<(?:[!?]|\/[^A-Za-z])/.test(html.slice(i, i + 2))) {
      const end = html.indexOf('>', i + 2);
      i = end < 0 ? html.length : end + 1;
      continue;
    }
    if (/^<\/?[A-Za-z]/.test(html.slice(i, i + 3))) {
      // A tag: to its `>`, quoted attribute values passed over.
      let j = i + 1;
      let quote: string | null = null;
      while (j < html.length && (quote !== null || html[j] !== '>')) {
        if (quote === null && (html[j] === '"' || html[j] === "'")) quote = html[j]!;
        else if (html[j] === quote) quote = null;
        j++;
      }
      i = j + 1;
      continue;
    }
    const next = html.indexOf('<', i + 1);
    const end = next < 0 ? html.length : next;
    shown += ` ${decode(html.slice(i, end))} `;
    i = end;
  }
  return shown.replace(INVISIBLE, '');
}

/** Tag characters spell out ASCII: read them as the model would. */
const untag = (text: string) =>
  decode(text).replace(/[\u{E0020}-\u{E007E}]/gu, (c) =>
    String.fromCodePoint(c.codePointAt(0)! - 0xe0000),
  );
const tagged = (text: string) =>
  [...text].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join('');

const PIECES = [
  '<!--',
  '-->',
  '--!>',
  '<!-->',
  '\n',
  '\n\n',
  '> ',
  '- ',
  '1. ',
  '  ',
  '    ',
  '```',
  '~~~',
  '`',
  '<div>',
  '</div>',
  '<pre>',
  '</pre>',
  '<?',
  '?>',
  '<!X',
  '>',
  '<![CDATA[',
  ']]>',
  '[a]:',
  '[^n]:',
  '[^n]',
  '[a]',
  '[',
  ']',
  ':',
  ' /u',
  ' "t',
  '"',
  '(',
  ')',
  '\\',
  '*',
  '#',
  'text',
  '\u200b',
  '&zwj;',
  '<!--->',
  '\t',
  '<details>',
  '</details>',
  '<script>',
  '</script>',
  '<textarea>',
  '<br>',
  '<https://x.y>',
  '|',
  '---',
  '=',
  '&lt;!--',
  '<p>',
];

/** Pieces of markdown, each marker word (`m7`) once, some spelt in tag characters. */
const markdownWithMarkers = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...PIECES) },
      { weight: 2, arbitrary: fc.constant('MARK') },
      { weight: 1, arbitrary: fc.constant('TAGGED') },
      { weight: 1, arbitrary: fc.constant('ENTITY') },
    ),
    { maxLength: 40 },
  )
  .map((pieces) => {
    let n = 0;
    return pieces
      .map((p) => {
        if (p === 'MARK') return ` m${n++} `;
        if (p === 'TAGGED') return tagged(` m${n++} `);
        if (p === 'ENTITY')
          return [...tagged(` m${n++} `)]
            .map((c) => `&#x${c.codePointAt(0)!.toString(16)};`)
            .join('');
        return p;
      })
      .join('');
  });

const markers = (text: string) => new Set(text.match(/\bm\d+\b/g) ?? []);

describe('visibleMarkdown against GitHub’s rendering', () => {
  it('keeps no marker GitHub hides', () => {
    fc.assert(
      fc.property(markdownWithMarkers, (markdown) => {
        const shown = markers(shownText(renderGfm(markdown)));
        const given = markers(untag(visibleMarkdown(markdown)));
        const hiddenButGiven = [...given].filter((m) => !shown.has(m));
        expect(hiddenButGiven).toEqual([]);
      }),
      { numRuns: 600 },
    );
  });

  it('models what GitHub hides', () => {
    const html = renderGfm('a m1 <!-- m2 --> m3\n\n<div>\n<!-- m4\n\nb --> m5\n\n[x]: /u "m6"');
    expect([...markers(shownText(html))]).toEqual(['m1', 'm3']);
  });
});
