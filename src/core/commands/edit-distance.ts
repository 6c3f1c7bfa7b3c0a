/**
 * Damerau-Levenshtein distance in its optimal-string-alignment form: insertions, deletions,
 * substitutions and swaps of two neighbours each cost 1. It runs for every command name on
 * every `/word` line of a comment, hence the rolling rows and the early exit: once the
 * distance must exceed `limit`, it returns `limit + 1` instead of finishing.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  const width = b.length + 1;
  let beforePrevious = new Int32Array(width);
  let previous = new Int32Array(width);
  let current = new Int32Array(width);
  for (let j = 0; j < width; j++) previous[j] = j;
  let previousMin = 0;
  for (let i = 1; i <= a.length; i++) {
    const ai = a.charCodeAt(i - 1);
    current[0] = i;
    let currentMin = i;
    for (let j = 1; j < width; j++) {
      const bj = b.charCodeAt(j - 1);
      let best = Math.min(
        at(previous, j) + 1,
        at(current, j - 1) + 1,
        at(previous, j - 1) + (ai === bj ? 0 : 1),
      );
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
        best = Math.min(best, at(beforePrevious, j - 2) + 1);
      }
      current[j] = best;
      currentMin = Math.min(currentMin, best);
    }
    // Every alignment passes through row i-1 or row i (a swap skips one row, never two).
    if (previousMin > limit && currentMin > limit) return limit + 1;
    [beforePrevious, previous, current] = [previous, current, beforePrevious];
    previousMin = currentMin;
  }
  const distance = at(previous, b.length);
  return distance > limit ? limit + 1 : distance;
}

function at(row: Int32Array, index: number): number {
  return row[index] ?? 0;
}
