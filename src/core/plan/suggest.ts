// Did-you-mean for keys and ids. Distances above 2 are never useful, so the DP stops early.

const SYNONYMS = new Map<string, string>(
  Object.entries({
    dependencies: 'deps',
    depends_on: 'deps',
    dependson: 'deps',
    needs: 'deps',
    requires: 'deps',
    after: 'deps',
    name: 'title',
    summary: 'title',
    description: 'prompt',
    instructions: 'prompt',
    body: 'prompt',
    kind: 'type',
    timeout: 'timeoutMinutes',
    timeout_min: 'timeoutMinutes',
    branch: 'base',
    base_branch: 'base',
  }),
);

/** Levenshtein distance, or `max + 1` as soon as it is known to exceed `max`. */
export function boundedDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/**
 * The closest candidate within edit distance 2 (case-insensitive; 1 for words of 2-3
 * letters), or a known synonym.
 */
export function suggest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    // two edits to a two-letter word can reach any other two-letter word: not a hint
    const limit = Math.min(2, Math.floor(Math.max(lower.length, candidate.length) / 2));
    const d = boundedDistance(lower, candidate.toLowerCase(), limit);
    if (d <= limit && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (best !== undefined) return best;
  const synonym = SYNONYMS.get(lower.replace(/-/g, '_'));
  for (const candidate of candidates) if (candidate === synonym) return synonym;
  return undefined;
}
