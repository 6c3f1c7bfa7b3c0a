/** A span of a text that is left out, and what stands in its place, if anything. */
export type Cut = { start: number; end: number; replacement?: string };

/**
 * The text without its cuts. Cuts may overlap: what any of them covers is left out, and a cut
 * that starts inside another leaves no replacement of its own.
 */
export function withoutCuts(text: string, cuts: readonly Cut[]): string {
  const ordered = [...cuts].sort((a, b) => a.start - b.start || b.end - a.end);
  let kept = '';
  let cursor = 0;
  for (const cut of ordered) {
    if (cut.start < cursor) {
      cursor = Math.max(cursor, cut.end);
      continue;
    }
    kept += text.slice(cursor, cut.start) + (cut.replacement ?? '');
    cursor = Math.max(cursor, cut.end);
  }
  return kept + text.slice(cursor);
}
