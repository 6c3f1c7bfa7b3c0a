/**
 * Whether a Mermaid diagram is left out whole (docs/security.md, "Text nobody saw";
 * mermaid-text.ts): one that may draw some of its text out of sight, show some only on hover, or
 * draw only one of two titles. Which labels a style reaches, and whether a colour, a size or a
 * stylesheet hides them, is not worked out: the diagram goes, and a person who saw it in full
 * loses it from the agent's view, which is the safe side. The forms are Mermaid's grammars'
 * (mermaid's diagrams/<kind>/parser/*.jison, diagram-api/regexes.ts):
 * - a directive (`%%{init: {"themeCSS": …}}%%`) or a front matter (`---` first, with its
 *   `config`), which may restyle every label;
 * - a statement that styles or links nodes, at a statement's start: `style`, `classDef`,
 *   `class` (but in a class diagram, where it declares a class), `cssClass`, `linkStyle`,
 *   `click`, `href`, `call`, `callback` (a link and a tooltip show only on hover), and C4's
 *   `Update…Style`;
 * - the class shorthand `:::` anywhere;
 * - per kind: a class diagram's `link`; a sequence diagram's `box` and `rect` (a background
 *   that may be the text's colour), `link`, `links`, `properties` and `details` (menus shown on
 *   hover) and a participant's `@{…}`; a kanban card's `@{…}`; C4's `$name=` parameters;
 * - a second `title` statement (but in a flowchart, mindmap or kanban board, which have none):
 *   only the last is drawn;
 * - HTML but a few bare text tags (`<br>`, `<b>`, …), which may hide or restyle a label's text
 *   (mermaid-html.ts).
 * Keywords are matched in any case, at a line's start or after `;`, `{` or `}`: where the
 * grammars are stricter, a diagram is left out that Mermaid would have drawn in full.
 */

import { holdsHidingHtml } from './mermaid-html.js';
import type { DiagramKind } from './mermaid-kind.js';

const STATEMENT_START = String.raw`(?:^|[;{}])[^\S\n]*`;
const STYLING = String.raw`(?:style|classDef|cssClass|linkStyle|click|href|call|callback|Update\w*Style)\b`;
const CLASS = String.raw`class\b`;
const KIND_STATEMENTS: Partial<Record<DiagramKind, string>> = {
  class: String.raw`link\b`,
  sequence: String.raw`(?:box|rect|links?|properties|details)\b`,
};
const DIRECTIVE = /%%\{/;
const FRONT_MATTER = /^\s*---/;
const CLASS_SHORTHAND = /:::/;
const SHAPE_DATA = /@\{/;
const C4_PARAMETER = /\$\w+\s*=/;
const TITLE = new RegExp(`${STATEMENT_START}title\\b`, 'gim');
const UNTITLED: ReadonlySet<DiagramKind> = new Set(['flowchart', 'mindmap', 'kanban']);

/**
 * Whether the diagram is left out whole. `body` is the diagram as written (container prefixes
 * blanked), `read` the same without its comments.
 */
export function leftOutWhole(body: string, read: string, kind: DiagramKind): boolean {
  if (DIRECTIVE.test(body) || FRONT_MATTER.test(body) || CLASS_SHORTHAND.test(read)) return true;
  if ((kind === 'sequence' || kind === 'kanban') && SHAPE_DATA.test(read)) return true;
  if (kind === 'c4' && C4_PARAMETER.test(read)) return true;
  if (!UNTITLED.has(kind) && [...read.matchAll(TITLE)].length > 1) return true;
  if (holdsHidingHtml(read, kind)) return true;
  const keywords = [STYLING, ...(kind === 'class' ? [] : [CLASS])];
  const own = KIND_STATEMENTS[kind];
  if (own !== undefined) keywords.push(own);
  return new RegExp(`${STATEMENT_START}(?:${keywords.join('|')})`, 'im').test(read);
}
