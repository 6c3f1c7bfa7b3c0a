/**
 * Whether a Mermaid diagram holds HTML that may hide or restyle its text (docs/security.md, "Text
 * nobody saw"), for mermaid-whole.ts, which leaves such a diagram out whole. Mermaid draws a
 * label's HTML, sanitised by DOMPurify with its defaults but `<style>` (mermaid's
 * diagrams/common/common.ts, `sanitizeText`), which keep `style`, `class`, `hidden`,
 * `<font color>`, `<details>` and the like. Which of them hides what is not worked out: only a
 * few tags without attributes, which draw their text as text, are allowed. Any other `<` an HTML
 * parser may take for a tag's start (a letter, `/`, `!` or `?` after it) leaves the diagram out,
 * one that never closes too (`<span hidden` to the label's end), as the parser drops it with what
 * it holds. `<sub>` and `<sup>` are not allowed: nested, they draw text too small to read. An HTML
 * comment is left out on its own, wherever it stands (visible-text.ts). A class or state
 * diagram's usual annotations (`<<interface>>`, `<<fork>>`), which Mermaid draws as `«interface»`
 * or as a shape, are no tags.
 */

import type { DiagramKind } from './mermaid-kind.js';

const TAG_START = /<(?=[A-Za-z/!?])/g;
const COMMENT_START = '<!--';
const TEXT_TAG = /<\/?(?:br|b|i|strong|em|code|u|s)\s*\/?>/iy;
const ANNOTATION = /<<(?:interface|abstract|service|enumeration|enum|fork|join|choice)>>/gi;
const ANNOTATED: ReadonlySet<DiagramKind> = new Set(['class', 'state']);

/** Whether `read` (the diagram without its comments) holds a tag that is not a text tag. */
export function holdsHidingHtml(read: string, kind: DiagramKind): boolean {
  const text = ANNOTATED.has(kind) ? read.replace(ANNOTATION, '') : read;
  for (const { index } of text.matchAll(TAG_START)) {
    if (text.startsWith(COMMENT_START, index)) continue;
    TEXT_TAG.lastIndex = index;
    if (!TEXT_TAG.test(text)) return true;
  }
  return false;
}
