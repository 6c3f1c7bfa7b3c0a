// Check run output carries untrusted text (veto reasons, task titles). These helpers keep it
// readable and verbatim while making sure it can neither ping people nor inject markup, and
// stays inside GitHub's size limits. The summary is markdown: see inertInline for its text.
import { flattenLine, WORD_JOINER } from '../inert-markdown.js';

/** GitHub's limit for `output.title`. */
export const CHECK_TITLE_MAX = 1000;
/**
 * GitHub's limit for `output.summary`: documented as 65535 characters but enforced on bytes,
 * so measure UTF-8 bytes to stay under it with non-Latin text too.
 */
export const CHECK_SUMMARY_MAX_BYTES = 65535;

/** `@user` and `@org/team` still read the same but no longer mention anyone. */
function neutraliseMentions(text: string): string {
  return text.replace(/@(?=[\p{L}\p{N}_-])/gu, `@${WORD_JOINER}`);
}

/** Untrusted text for a plain-text field such as the check run title. */
export function plainText(text: string): string {
  return neutraliseMentions(flattenLine(text));
}

/** At most `max` code points (never splitting a surrogate pair), marking the cut with `…`. */
export function capChars(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** At most `maxBytes` of UTF-8, cut on a code point and marked with `…` (3 bytes). */
export function capBytes(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) return text;
  let used = 0;
  let out = '';
  for (const c of text) {
    const size = utf8Length(c);
    if (used + size > maxBytes - 3) break;
    used += size;
    out += c;
  }
  // Prefer ending on a line, so a cut never leaves half an entity or table row behind.
  const lastLine = out.lastIndexOf('\n');
  if (lastLine > out.length / 2) out = out.slice(0, lastLine + 1);
  return `${out}…`;
}

export function utf8Length(text: string): number {
  let bytes = 0;
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}
