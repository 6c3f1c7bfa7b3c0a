import { describe, expect, it } from 'vitest';
import { MATH_LEFT_OUT, mathCuts } from '../../src/core/math-text.js';

const math = (tex: string) => `Fix it: $${tex}$.`;
const leftOut = (markdown: string) =>
  mathCuts(markdown).some((cut) => cut.replacement === MATH_LEFT_OUT);

/**
 * docs/security.md, "Text nobody saw": math GitHub draws with MathJax is given as written only
 * when every command in it draws what it names. Each row is a way MathJax draws text as nothing,
 * out of sight or too small, or defines what a command does (MathJax-src's TeX packages).
 */
describe('mathCuts', () => {
  it.each([
    ['a phantom', '\\phantom{x}'],
    ['a horizontal phantom', '\\hphantom{x}'],
    ['a vertical phantom', '\\vphantom{x}'],
    ['a colour', '\\color{white}x'],
    ['a transparent colour', '{\\color{transparent} x}'],
    ['a text colour', '\\textcolor{#fff}{x}'],
    ['a colour box', '\\colorbox{white}{x}'],
    ['a box of no height', '\\smash{x}'],
    ['a box of no width', '\\llap{x} \\rlap{x} \\mathclap{x}'],
    ['text in a box of no size', '\\mathrlap{\\text{x}}'],
    ['a negative kern', 'a\\kern-9em x'],
    ['negative spaces', 'a\\!\\!\\!\\!x'],
    ['a space of any width', '\\hspace{-9em}x'],
    ['a raised box', '\\raise{99em}{x}'],
    ['a tiny size', '\\tiny x'],
    ['the smallest style', '\\scriptscriptstyle x'],
    ['CSS', '\\style{display:none}{x}'],
    ['a class', '\\class{x}{y}'],
    ['a bounding box with a style', '\\bbox[color:white]{x}'],
    ['a macro definition', '\\def\\x#1{}\\x{y}'],
    ['a new command', '\\newcommand{\\x}[1]{}'],
    ['a command made another', '\\let\\frac\\phantom'],
    ['a macro defined elsewhere on the page', '\\hide{x}'],
    ['a label, which nobody sees', '\\label{x}'],
    ['a toggle, which draws one of its parts', '\\toggle{a}{x}\\endtoggle'],
    ['a tooltip', '\\mathtip{a}{x}'],
    ['a comment', 'a % x'],
    ['a line break that may move a line onto another', 'a \\\\[-9em] x'],
    ['an escaped backslash GitHub renders as one', '\\\\phantom{x}'],
    ['a numeric reference to a backslash', '&#92;phantom{x}'],
    ['a named reference to a backslash', '&bsol;phantom{x}'],
    ['a percent sign GitHub renders unescaped', '50\\%'],
  ])('leaves out math with %s', (_, tex) => {
    expect(leftOut(math(tex))).toBe(true);
  });

  it.each([
    ['letters, digits and operators', 'a^2 + b_1 = c'],
    ['Greek letters and symbols', '\\alpha \\le \\beta \\to \\infty'],
    ['fractions, roots and sums', '\\frac{1}{2} \\sqrt{x} \\sum_{i=1}^n i'],
    ['delimiters', '\\left( \\lbrace x \\rbrace \\right)'],
    ['text and fonts', '\\text{if } \\mathbb{R} \\mathbf{v} \\operatorname{rank}'],
    ['environments and line breaks', '\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}'],
    ['positive spaces', 'a \\, b \\; c \\quad d'],
    ['escaped characters', '\\{ \\} \\_ \\# \\$ \\&'],
    ['character references GitHub decodes', 'a &lt; b'],
  ])('keeps math with %s', (_, tex) => {
    expect(leftOut(math(tex))).toBe(false);
  });

  it.each([
    ['a math block', '```math\n\\phantom{x}\n```'],
    [
      'a math block under a tilde fence with words after its language',
      '~~~ math x\n\\phantom{x}\n~~~',
    ],
    ['a math block in a list item, unclosed', '- ```math\n  \\phantom{x}'],
    ['display math', '$$\n\\phantom{x}\n$$'],
    ['display math over blank lines', '$$\n\n\\phantom{x}\n\n$$'],
    ["math's own code-span delimiters", '$`\\phantom{x}`$'],
    ['math between code spans', '`a` $\\phantom{x}$ `b`'],
    ['math after an escaped backtick', '\\`a $\\phantom{x}$ `b`'],
    ['math in raw HTML, where backticks are text', '<pre>\n\n`a $\\phantom{x}$ b`\n\n</pre>'],
    ['math after a code span whose backtick a link takes', '[a](x`y) $\\phantom{x}$ `z`'],
    [
      'math in a table, whose cells split a code span',
      '| `a | $\\phantom{x}$ | b` |\n| - | - | - |',
    ],
  ])('finds math in %s', (_, markdown) => {
    expect(leftOut(markdown)).toBe(true);
  });

  it('replaces from the first `$` of a paragraph to its last', () => {
    const markdown = 'a $x$ b $\\phantom{y}$ c\n\nd $e$';
    expect(mathCuts(markdown)).toEqual([{ start: 2, end: 21, replacement: MATH_LEFT_OUT }]);
  });
});
