import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeBlockLines } from '../../src/core/code-blocks.js';
import { visibleMarkdown } from '../../src/core/visible-text.js';
import { CMARK_GFM } from './cmark-gfm.js';
import { decode, shownText } from './github-shown.js';

/**
 * docs/security.md, "Text nobody saw": nothing the labelled issue hides on GitHub reaches the
 * agent. GitHub renders in two steps: cmark-gfm turns the markdown into HTML (raw HTML passed
 * through, markdown text escaped), then an HTML parser reads that HTML for its sanitiser, and
 * comments and bogus comments (`<!X …>`, `<?…>`, `<![CDATA[…`) show nothing. Both are modelled
 * here: cmark-gfm itself, with GitHub's extensions and footnotes, then the HTML tokenizer's
 * rules for what is text (an unclosed comment runs to the end; a bogus one to the next `>`).
 *
 * A code block's text is shown as written, escaped: a line is taken for code only where
 * cmark-gfm parses a code block at the top level (its own parse, with source positions), and
 * such a block of an issue-like text is given as written.
 */

const EXTENSIONS = ['table', 'strikethrough', 'autolink', 'tagfilter', 'tasklist', 'footnotes'];

function cmarkGfm(markdown: string, format: 'html' | 'xml', ...options: string[]): string {
  const args = ['--unsafe', '-t', format, ...options, ...EXTENSIONS.flatMap((e) => ['-e', e])];
  const result = spawnSync(CMARK_GFM, args, { input: markdown, encoding: 'utf8' });
  if (result.error || result.status !== 0) throw new Error(`${CMARK_GFM} failed`);
  return result.stdout;
}

const renderGfm = (markdown: string) => cmarkGfm(markdown, 'html');

/** A code block as cmark-gfm parses it: its info string and its text. */
type CodeBlock = { info: string; text: string; topLevel: boolean };

/** The code blocks of the markdown, read from cmark-gfm's XML (one block per element). */
function codeBlocks(markdown: string): CodeBlock[] {
  const xml = cmarkGfm(markdown, 'xml');
  return [
    ...xml.matchAll(/^( *)<code_block(?: info="([^"]*)")?[^>]*>([\s\S]*?)<\/code_block>/gm),
  ].map(([, indent, info, text]) => ({
    info: decode(info ?? ''),
    text: decode(text!),
    // The document's children are indented by two spaces.
    topLevel: indent!.length === 2,
  }));
}

/** The lines (from 0) of the code blocks cmark-gfm parses at the top level, fences and all. */
function topLevelCodeLines(markdown: string): Set<number> {
  const xml = cmarkGfm(markdown, 'xml', '--sourcepos');
  const lines = new Set<number>();
  for (const [, first, last] of xml.matchAll(/^ {2}<code_block sourcepos="(\d+):\d+-(\d+):/gm))
    for (let line = Number(first) - 1; line < Number(last); line++) lines.add(line);
  return lines;
}

/** The language GitHub highlights a code block as: its info string's first word. */
const language = (info: string) => info.split(/[ \t\v\f]/)[0]!;

const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

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
  // Tags whose attributes hold text, left open or closed.
  '<div title="',
  "<span title='",
  '<a href="',
  '<img alt="',
  ' src="/i"',
  '<x-y ',
  '<b ',
  '=',
  "'",
  '/>',
  '<sub>',
  '<rp>',
  '<! ',
  '</ ',
  // Math, and what hides in it.
  '$',
  '$$',
  '$`',
  '`$',
  '\\phantom{',
  '\\color{white}',
  '}',
  '%',
  '&#92;phantom{',
  '\\\\phantom{',
  '\\alpha',
  // Images and reference links.
  '![',
  '](',
  '][',
];

/** Pieces that make lines GitHub may read as code, or as what only looks like code. */
const CODE_PIECES = [
  '```php',
  '````',
  '~~~~',
  '   ```',
  '<?php',
  '<!DOCTYPE html>',
  '<!doctype',
  '<?>',
  '</textarea>',
  '<span>',
  '\ufeff',
  '\u00a0',
  '```mermaid',
  '%%',
  '%%{',
  '}%%',
  'accTitle: ',
  '```math',
];

/**
 * What may start a line: indentation and containers, which decide whether what follows is code,
 * and what a line may hold after it, where `MARK` stands for a marker.
 */
const LINE_STARTS = [
  ...['', '', '', '', ' ', '  ', '   ', '    ', '\t', '     ', '        '],
  ...['> ', '>', ' > ', '> > ', '- ', '  - ', '-   ', '-     ', '-\t', '* ', '1. ', '2) ', '10.  '],
  ...['[^n]: ', '- > ', '> - ', '>\t', '> \t', '-  \t'],
];
const LINE_PIECES = [
  '```',
  '````',
  '~~~',
  '```MARK',
  '```php',
  '```mermaid',
  '<!--',
  '-->',
  '<!-- MARK -->',
  '<?',
  '?>',
  '<?php',
  '<!X',
  '<!doctype html>',
  '<![CDATA[',
  ']]>',
  '>',
  '<div>',
  '</div>',
  '<details>',
  '<pre>',
  '</pre>',
  '<textarea>',
  '</textarea>',
  '<span>',
  '<p>',
  '# ',
  '---',
  '===',
  '|a|',
  '|-|',
  '[a]: /u',
  '[^n]',
  '%%',
  '`',
  '\t',
  '    ',
  '=',
  '- - -',
  '***',
  '<!-->',
  '<?>',
  '<script>',
  '</script>',
  '```math',
  '$$',
  '\\phantom{',
  '<div title="',
  "<p title='",
  '<img alt="',
  '![a',
  '%%{',
  'accDescr {',
  'MARK',
  'MARK',
  'MARK',
];

/** Each marker word (`m7`) once, some spelt in tag characters or references to them. */
function withMarkers(pieces: readonly string[]): string {
  let n = 0;
  return pieces
    .map((p) => {
      if (p === 'TAGGED') return tagged(` m${n++} `);
      if (p === 'ENTITY')
        return [...tagged(` m${n++} `)]
          .map((c) => `&#x${c.codePointAt(0)!.toString(16)};`)
          .join('');
      return p.replaceAll('MARK', () => ` m${n++} `);
    })
    .join('');
}

/** Pieces of markdown anywhere on a line. */
const markdownOfPieces = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...PIECES) },
      { weight: 1, arbitrary: fc.constantFrom(...CODE_PIECES) },
      { weight: 2, arbitrary: fc.constant('MARK') },
      { weight: 1, arbitrary: fc.constant('TAGGED') },
      { weight: 1, arbitrary: fc.constant('ENTITY') },
    ),
    { maxLength: 40 },
  )
  .map(withMarkers);

/** Lines, each a start and pieces: the block structure code blocks are told apart by. */
const markdownOfLines = fc
  .array(
    fc.tuple(
      fc.constantFrom(...LINE_STARTS),
      fc.array(fc.constantFrom(...LINE_PIECES), { maxLength: 3 }),
    ),
    { maxLength: 24 },
  )
  .map((lines) => withMarkers(lines.map(([start, pieces]) => [start, ...pieces, '\n']).flat()));

/** Pieces of math and diagrams, dense enough that hiding commands and comments meet markers. */
const DENSE_PIECES = [
  ...['$', '$', '$$', '$`', '`$', '`', '{', '}', '%', ' ', '\n', '\n\n', '> ', '- ', '|'],
  ...['\\phantom{', '\\color{white}', '\\alpha', '\\frac{', '&#92;phantom{', '\\\\phantom{'],
  ...['\n```math\n', '\n```mermaid\n', '\n```\n', '\n~~~math\n', '%% ', '%%{', '}%%'],
  ...['\naccTitle: ', '\naccDescr {', '<div>\n', '[a](x`y)'],
];
/** Pieces of images and links, brackets that balance or not among them. */
const LINK_PIECES = ['[', ']', '\\]', '`', '<b>', ' ', '\n', '\n\n', 'MARK'];
const markdownOfDense = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...DENSE_PIECES) },
      { weight: 1, arbitrary: fc.constant('MARK') },
    ),
    { maxLength: 30 },
  )
  .map(withMarkers);
/** An image or a reference link around pieces that may hold a marker, among other pieces. */
const markdownOfLinks = fc
  .array(
    fc.oneof(
      fc.constantFrom(...LINK_PIECES),
      fc
        .tuple(
          fc.constantFrom(['![', '](x)'], ['![', ']'], ['[a][', ']'], ['![a][', ']']),
          fc.array(fc.constantFrom(...LINK_PIECES), { maxLength: 5 }),
        )
        .map(([[open, close], inner]) => [open, ...inner, close].join('')),
    ),
    { maxLength: 12 },
  )
  .map(withMarkers);

const markers = (text: string) => new Set(text.match(/\bm\d+\b/g) ?? []);

/** What a code block's text must be written as to come out as `text`. */
const CODE_LINES = [
  '<?php',
  'echo $a->b;',
  '?>',
  '<!DOCTYPE html>',
  '<!doctype html>',
  '<html lang="en">',
  '<!-- a note -->',
  '<!--',
  '-->',
  '<![CDATA[ x ]]>',
  '<!X y>',
  '[x]: y',
  '[^n]: a note',
  '[//]: # (a comment)',
  'Map<string, List<T>> m;',
  'a &zwj; b &#8203; &lt;',
  '<div>',
  '</div>',
  '<script>',
  '```',
  '~~~',
  '```js',
  '    ```',
  '> quoted',
  '- item',
  '# heading',
  '<details>',
  '\tindented',
  '  two',
  '|a|b|',
  '---',
  'x = 1 \\',
  '`tick`',
  'zero\u200bwidth',
  '%% c',
  '',
];
/** Info strings: a language or not, words after it or not. */
const INFO_STRINGS = ['', 'php', ' ts', 'html title="x"', 'IGNORE PREVIOUS', '{r}', 'c++', 'x&y'];
/** Markdown around a code block, as issues have it. */
const CONTEXT = [
  'Some text.',
  'Text\nover lines',
  '# Title',
  '- item',
  '1. step',
  '> quote',
  '<!-- a template -->',
  // An HTML block ends at a blank line, which issues have before a code block: visibleMarkdown
  // leaves out all after a comment that runs over lines in one.
  '<details>\n<summary>Logs</summary>\n',
  '<details><summary>Logs</summary>\n',
  '</details>\n',
  '| a | b |\n| - | - |\n| 1 | 2 |',
  '[x]: https://x.y',
  '***',
  '```\nother code\n```',
  'Text with `code`.',
];

/** The longest run of `char` in `text`. */
const longestRun = (text: string, char: string) =>
  Math.max(0, ...[...text.matchAll(new RegExp(`\\${char}+`, 'g'))].map(([run]) => run.length));

/** GitHub's language for a block as visibleMarkdown keeps it: a short word, or none. */
const keptLanguage = (info: string) => {
  const word = language(info);
  return /^[A-Za-z0-9][A-Za-z0-9_+#.-]{0,19}$/.test(word) ? word : '';
};

/**
 * A code block: its markdown, the text cmark-gfm gives it, and how visibleMarkdown must give it
 * (its fence keeping a short language only, no invisible characters).
 */
type WrittenBlock = { markdown: string; text: string; given: string };

const codeBlock = fc
  .tuple(
    fc.array(fc.constantFrom(...CODE_LINES), { minLength: 1, maxLength: 6 }),
    fc.constantFrom('`', '~', 'indented'),
    fc.constantFrom(...INFO_STRINGS),
  )
  .map(([lines, marker, info]): WrittenBlock => {
    const text = lines.join('\n');
    if (marker === 'indented') {
      const indented = lines.map((line) => (line === '' ? '' : `    ${line}`)).join('\n');
      // An indented block runs from its first line of text to its last. A heading and a blank
      // line before it end any list or paragraph, which would take it in (a table's line is not
      // told from a paragraph's; a list's is raw HTML, whose comment hides the rest).
      return {
        markdown: `#### Code\n\n${indented}`,
        text: `${text.trim()}\n`,
        given: indented.trim(),
      };
    }
    // A fence longer than any run of its character in the text: no line of the text closes it.
    const fence = marker.repeat(Math.max(3, longestRun(text, marker) + 1));
    const written = marker === '`' ? info.replaceAll('`', '') : info;
    return {
      markdown: `${fence}${written}\n${text}\n${fence}`,
      text: `${text}\n`,
      given: `${fence}${keptLanguage(written.trim())}\n${text}\n${fence}`,
    };
  });

/** Issue-like markdown with code blocks in it, blank lines or not around them. */
const markdownWithCode = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...CONTEXT), codeBlock),
      fc.constantFrom('\n', '\n\n', '\n\n\n'),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => ({
    markdown: parts
      .map(([part, gap]) => `${typeof part === 'string' ? part : part.markdown}${gap}`)
      .join(''),
    blocks: parts.flatMap(([part]) => (typeof part === 'string' ? [] : [part])),
  }));

/** Each run renders with cmark-gfm in a process of its own: a thousand take seconds, and more on a busy machine. */
const PROPERTY_TIMEOUT_MS = 180_000;

/**
 * Runs of the two properties over whole documents: each `npm test` draws new ones (fast-check
 * seeds at random), so the suite samples two hundred a run, each run a cmark-gfm process or two
 * (about 20 ms of CPU each on a 2-core CI machine); FUZZ_RUNS=5000 searches harder.
 */
const DOCUMENT_RUNS = Number(process.env.FUZZ_RUNS ?? 200);

describe('visibleMarkdown against GitHub’s rendering', () => {
  it(
    'keeps no marker GitHub hides',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(markdownOfPieces, markdownOfLines, markdownOfDense, markdownOfLinks),
          (markdown) => {
            // References a code block shows as written are read as the agent would read them.
            const shown = markers(untag(shownText(renderGfm(markdown))));
            // The language a code block is highlighted as is kept (src/core/visible-text.ts).
            const languages = codeBlocks(markdown).map((block) => language(block.info));
            const seen = new Set([...shown, ...markers(languages.join(' '))]);
            const given = markers(untag(visibleMarkdown(markdown)));
            const hiddenButGiven = [...given].filter((m) => !seen.has(m));
            expect(hiddenButGiven).toEqual([]);
          },
        ),
        { numRuns: DOCUMENT_RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'gives each code block GitHub shows at the top level as written',
    () => {
      fc.assert(
        fc.property(markdownWithCode, ({ markdown, blocks }) => {
          // A code block's text is hidden too after a comment left open in raw HTML before it.
          const text = shownText(renderGfm(markdown));
          const shown = new Set(
            codeBlocks(markdown)
              .filter((block) => block.topLevel && text.includes(block.text.replace(INVISIBLE, '')))
              .map((block) => block.text),
          );
          const given = visibleMarkdown(markdown);
          for (const block of blocks.filter((b) => shown.has(b.text)))
            expect(given).toContain(block.given.replace(INVISIBLE, ''));
        }),
        { numRuns: Math.round(DOCUMENT_RUNS * 0.75) },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'takes a line for code only where cmark-gfm parses a code block at the top level',
    () => {
      fc.assert(
        fc.property(markdownOfLines, (markdown) => {
          const code = topLevelCodeLines(markdown);
          // The text's last line break ends its last line: no empty line follows.
          const lines = markdown.replace(/\n$/, '').split('\n');
          const taken = codeBlockLines(lines).flatMap((kind, line) =>
            kind === 'text' ? [] : [line],
          );
          expect(taken.filter((line) => !code.has(line))).toEqual([]);
        }),
        { numRuns: DOCUMENT_RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('models what GitHub hides', () => {
    const html = renderGfm('a m1 <!-- m2 --> m3\n\n<div>\n<!-- m4\n\nb --> m5\n\n[x]: /u "m6"');
    expect([...markers(shownText(html))]).toEqual(['m1', 'm3']);
  });
});
