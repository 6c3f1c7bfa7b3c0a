import { breakColour, neutraliseHtmlComments, stripInvisible } from '../inert-markdown.js';
// Every untrusted value that goes into a PlanError message passes through here, so the
// message's backtick spans are always well-formed and formatPlanErrors can trust them.

// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const LINE_BREAKS_AND_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Truncate by code points so a surrogate pair is never cut in half. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text.slice(0, max * 2));
  return points.length <= max ? text : points.slice(0, max).join('') + '…';
}

/**
 * The text a code span may hold: one line, no backticks, no `<!--` that reads as a marker, no
 * bidi control (which would reorder the rest of the error's line, the App's words included) and
 * no colour GitHub draws a swatch for (the plan's values are the planner's to choose).
 */
export function sanitizeForCode(text: string, max = 80): string {
  const clean = neutraliseHtmlComments(
    breakColour(
      stripInvisible(truncate(text, max).replace(/`/g, 'ˋ').replace(LINE_BREAKS_AND_CONTROLS, ' ')),
    ),
  );
  return clean === '' ? '""' : clean;
}

/** Quote an untrusted value as a code span. */
export function code(text: string, max = 80): string {
  return '`' + sanitizeForCode(text, max) + '`';
}

export function countCodePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // a high surrogate followed by a low one is a single code point
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
