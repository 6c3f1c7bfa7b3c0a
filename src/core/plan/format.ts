import type { PlanError } from './types.js';
import { escapeInlineText, neutraliseHtmlComments, stripInvisible } from '../inert-markdown.js';
import { LINE_BREAKS_AND_CONTROLS, sanitizeForCode } from './quote.js';

// Messages quote untrusted values in backtick spans (see quote.ts). Those spans are kept
// as code spans, where GitHub renders HTML, mentions and markdown literally; everything
// else is escaped. Either way nothing in a message can end the list item or open markup.

/** A markdown bullet list of the errors, one line each, safe to put in a comment. */
export function formatPlanErrors(errors: PlanError[]): string {
  return errors.map((e) => `- ${guardStart(location(e) + renderMessage(e.message))}`).join('\n');
}

// Text right after the bullet must not start a nested block (a list item, a thematic
// break, indented code).
function guardStart(text: string): string {
  return text
    .trimStart()
    .replace(/^([-+])/, '\\$1')
    .replace(/^(\d{1,9})([.)])/, '$1\\$2');
}

function location(error: PlanError): string {
  const parts: string[] = [];
  if (error.line !== undefined) {
    parts.push(
      error.column !== undefined
        ? `line ${error.line}, column ${error.column}`
        : `line ${error.line}`,
    );
  }
  if (error.path !== undefined && error.path !== '') {
    parts.push('`' + sanitizeForCode(error.path, 120) + '`');
  }
  return parts.length > 0 ? `${parts.join(' ')}: ` : '';
}

function renderMessage(message: string): string {
  const flat = stripInvisible(
    message.replace(/\r\n/g, '\n').replace(LINE_BREAKS_AND_CONTROLS, ' '),
  );
  const parts = flat.split('`');
  // An odd number of backticks cannot be paired into spans: escape them all.
  if (parts.length % 2 === 0) return escapeInlineText(flat);
  return parts
    .map((part, i) => {
      if (i % 2 === 0) return escapeInlineText(part);
      return part === '' ? '\\`\\`' : '`' + neutraliseHtmlComments(part) + '`';
    })
    .join('');
}
