import { globMatchesWithin, type StepBudget } from '../glob.js';

/**
 * The paths of `sorted` that `glob` matches (in order; only the first with `first`), or
 * undefined when `budget` runs out first. Only the paths under the glob's literal prefix
 * (`prefix`) are tried: every path it matches starts with it. The glob's length (its automaton,
 * built or looked up) and the binary search are spent too, so a glob costs steps even when no
 * path is under it; nothing is spent once the budget is out.
 */
export function pathsMatching(
  glob: string,
  prefix: string,
  sorted: readonly string[],
  budget: StepBudget,
  first = false,
): string[] | undefined {
  if (budget.left <= 0) return undefined;
  budget.left -= glob.length + Math.ceil(Math.log2(sorted.length + 1));
  if (budget.left < 0) return undefined;
  const matched: string[] = [];
  for (let i = firstAtOrAfter(sorted, prefix); i < sorted.length; i++) {
    const path = sorted[i]!;
    if (!path.startsWith(prefix)) break;
    const matches = globMatchesWithin(glob, path, budget);
    if (matches === undefined) return undefined;
    if (!matches) continue;
    matched.push(path);
    if (first) break;
  }
  return matched;
}

/** Whether the sorted `paths` hold `path`. */
export function sortedIncludes(paths: readonly string[], path: string): boolean {
  return paths[firstAtOrAfter(paths, path)] === path;
}

/** The index of the first of the sorted `paths` that is not before `key`. */
function firstAtOrAfter(paths: readonly string[], key: string): number {
  let low = 0;
  let high = paths.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (paths[mid]! < key) low = mid + 1;
    else high = mid;
  }
  return low;
}
