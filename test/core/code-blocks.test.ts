import { describe, expect, it } from 'vitest';
import { codeBlockLines, type CodeBlockLine } from '../../src/core/code-blocks.js';

const T: CodeBlockLine = 'text';
const F: CodeBlockLine = 'fence';
const C: CodeBlockLine = 'code';

/**
 * docs/security.md, "Text nobody saw": a line is taken for a code block's only where GitHub's
 * cmark-gfm surely renders it as one (test/rendering/visible-text.test.ts checks it against
 * cmark-gfm on random markdown). Each row is how cmark-gfm 0.29.0.gfm reads the lines.
 */
describe('codeBlockLines', () => {
  it.each<{ name: string; lines: string[]; kinds: CodeBlockLine[] }>([
    {
      name: 'a fenced block, its language and all',
      lines: ['Run:', '```php', '<?php', '```', 'Done.'],
      kinds: [T, F, C, F, T],
    },
    {
      name: 'a tilde fence, indented by three, closed by a longer one',
      lines: ['   ~~~', '```', '~~~~'],
      kinds: [F, C, F],
    },
    {
      name: 'an indented block after a blank line, blank lines inside it',
      lines: ['Run:', '', '    a', '', '    b', 'c'],
      kinds: [T, T, C, T, C, T],
    },
    {
      name: 'an indented line that goes on a paragraph',
      lines: ['Run:', '    a'],
      kinds: [T, T],
    },
    {
      name: 'an indented block after a heading or a thematic break',
      lines: ['# Run', '    a', '***', '    b'],
      kinds: [T, C, T, C],
    },
    {
      name: 'a fence indented by four, which closes nothing',
      lines: ['```', '    ```', '```', '<!-- x -->'],
      kinds: [F, C, F, T],
    },
    {
      name: 'a fence followed by a no-break space, which closes nothing',
      lines: ['```', '```\u00a0', '<!-- x -->'],
      kinds: [F, C, C],
    },
    {
      name: 'a fence in an HTML block that a blank line ends',
      lines: ['<div>', '```', '<!-- x -->', '```', '', '```', 'y', '```'],
      kinds: [T, T, T, T, T, F, C, F],
    },
    {
      name: 'a fence in an HTML comment over blank lines',
      lines: ['<!--', '', '```', 'x', '```', '-->', '```', 'y', '```'],
      kinds: [T, T, T, T, T, T, F, C, F],
    },
    {
      name: 'a fence after a comment that closes on its first line (`<!-->`)',
      lines: ['<!-->', '```', 'x', '```'],
      kinds: [T, F, C, F],
    },
    {
      name: 'a fence after <textarea>, raw to its close in later versions of the spec only',
      lines: ['<textarea>', '</textarea>', '```', 'x', '```'],
      kinds: [T, T, T, T, T],
    },
    {
      name: 'a fence after a tag that may open an HTML block, or go on a paragraph',
      lines: ['Hi', '<span>', '```', 'x', '```'],
      kinds: [T, T, T, T, T],
    },
    {
      name: 'a fence after a table, which it ends',
      lines: ['| a |', '| - |', '| 1 |', '```', 'x', '```'],
      kinds: [T, T, T, F, C, F],
    },
    {
      name: "a list item's fence and indented lines, and a fence at the start of a line after it",
      lines: ['- a', '  ```', '  x', '  ```', '', '      y', '```', 'z', '```'],
      kinds: [T, T, T, T, T, T, F, C, F],
    },
    {
      name: "a fence indented less than a list item's text, which ends it unless lazy",
      lines: ['- a', ' ```', 'x', '```', '<!-- y -->', '10.  b', '    ```', 'y', '```', 'z'],
      kinds: [T, F, C, F, T, T, T, T, F, C],
    },
    {
      name: 'a lazy line, which goes on the paragraph of a list item, and the indented one after it',
      lines: ['- a', 'b', '  ```', '  c', '  ```'],
      kinds: [T, T, T, T, T],
    },
    {
      name: "an indented block after a quote and a blank line, which ends it, not a list's",
      lines: ['> a', '', '    b', '- c', '', '    d'],
      kinds: [T, T, C, T, T, T],
    },
    {
      name: 'a line at the start after a blank one, which ends any container',
      lines: ['- a', '', 'b', '', '    c'],
      kinds: [T, T, T, T, C],
    },
    {
      name: "a quote's paragraph after a tab, which a line goes on lazily, indented or not",
      lines: ['> \t a', '        ```', 'b', '    c'],
      kinds: [T, T, T, T],
    },
    {
      name: "a list item's fence, after which a line is not lazy but ends the item",
      lines: ['- a', '  ```', '  b', 'c', '', '    d'],
      kinds: [T, T, T, T, T, C],
    },
    {
      name: 'a footnote, which goes on over indented lines',
      lines: ['[^n]: a', '', '    b', '```', 'c', '```'],
      kinds: [T, T, T, F, C, F],
    },
    {
      name: 'a block GitHub draws (Mermaid, math, maps), even when its name is escaped',
      lines: ['```mermaid', '%% x', '```', '~~~ Math', 'x', '~~~', '```&#109;ermaid', 'x', '```'],
      kinds: [T, T, T, T, T, T, T, T, T],
    },
    {
      name: 'a byte order mark before the first fence, which cmark-gfm skips',
      lines: ['\ufeff```', '<!-- x -->', 'y'],
      kinds: [T, T, T],
    },
  ])('$name', ({ lines, kinds }) => {
    expect(codeBlockLines(lines)).toEqual(kinds);
  });
});
