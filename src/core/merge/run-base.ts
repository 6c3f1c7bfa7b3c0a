/**
 * docs/lifecycle.md "Which base counts": a run merges into one branch, its base. Someone with
 * write access may retarget an agent PR; merged elsewhere, its change would miss the base while
 * its task counted as merged and freed its dependents. Why such a PR waits, or nothing when it
 * targets the base. A stacked child targets its parent's branch on purpose: the stack's rules
 * (core/stack) hold it before this is asked.
 */
export function offRunBase(pull: { baseRef: string }, runBase: string): string | undefined {
  if (pull.baseRef === runBase) return undefined;
  return `targets ${pull.baseRef}, not the run's base ${runBase}: retarget it to ${runBase} to merge`;
}
