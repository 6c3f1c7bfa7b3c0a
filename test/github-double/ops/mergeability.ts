import type { Core } from '../core.js';
import { branchSha, isAncestor, threeWayMerge } from '../git.js';
import { checkRunsOn, statusesOn, type Pull, type Repo } from '../model.js';

export type MergeableState =
  'clean' | 'behind' | 'dirty' | 'blocked' | 'unstable' | 'draft' | 'unknown';

export interface Mergeability {
  mergeable: boolean | null;
  state: MergeableState;
  conflicts: string[];
  pendingRequired: string[];
  failingRequired: string[];
  behind: boolean;
}

export type CheckVerdict = 'success' | 'pending' | 'failure';

const PASSING = new Set(['success', 'neutral', 'skipped']);

// The verdict of every check name and status context on a commit, latest one per name. A name
// pinned to an App (`pins`, branch protection's `app_id`) takes only that App's check runs:
// GitHub counts no other source for it, so neither another App's check nor a status does.
export function checkVerdicts(
  repo: Repo,
  sha: string,
  pins: ReadonlyMap<string, number> = new Map(),
): Map<string, CheckVerdict> {
  const verdicts = new Map<string, CheckVerdict>();
  const runs = [...checkRunsOn(repo, sha)].sort((a, b) => a.id - b.id);
  for (const r of runs) {
    const pinned = pins.get(r.name);
    if (pinned !== undefined && r.app.id !== pinned) continue;
    verdicts.set(
      r.name,
      r.status !== 'completed'
        ? 'pending'
        : PASSING.has(r.conclusion ?? '')
          ? 'success'
          : 'failure',
    );
  }
  const statuses = [...statusesOn(repo, sha)].sort((a, b) => a.id - b.id);
  for (const s of statuses) {
    if (pins.has(s.context)) continue;
    verdicts.set(
      s.context,
      s.state === 'success' ? 'success' : s.state === 'pending' ? 'pending' : 'failure',
    );
  }
  return verdicts;
}

export function requiredChecks(repo: Repo, branch: string): string[] {
  return repo.protection.get(branch)?.requiredChecks ?? [];
}

/** The base branch's required checks pinned to one App. */
export function requiredCheckApps(repo: Repo, branch: string): ReadonlyMap<string, number> {
  return repo.protection.get(branch)?.requiredCheckApps ?? new Map();
}

// `fresh` is for decisions GitHub takes on current data (merging, enqueueing); reads see the
// lag the test configured with mergeabilityLag.
export function mergeability(
  _core: Core,
  repo: Repo,
  pull: Pull,
  options: { fresh?: boolean } = {},
): Mergeability {
  const base: Mergeability = {
    mergeable: null,
    state: 'unknown',
    conflicts: [],
    pendingRequired: [],
    failingRequired: [],
    behind: false,
  };
  if (pull.issue.state === 'closed') return base;
  if (pull.unknownReads > 0 && !options.fresh) return base;
  const baseSha = branchSha(repo, pull.baseRef);
  if (!baseSha || !repo.commits.has(pull.headSha)) return base;
  const merged = threeWayMerge(repo, baseSha, pull.headSha);
  const conflicts = merged.ok ? [] : merged.conflicts;
  if (pull.forcedConflict && conflicts.length === 0) conflicts.push('(conflict set by the test)');
  const behind = !isAncestor(repo, baseSha, pull.headSha);
  if (conflicts.length > 0) return { ...base, mergeable: false, state: 'dirty', conflicts, behind };
  const required = requiredChecks(repo, pull.baseRef);
  const verdicts = checkVerdicts(repo, pull.headSha, requiredCheckApps(repo, pull.baseRef));
  const pendingRequired = required.filter((n) => (verdicts.get(n) ?? 'pending') === 'pending');
  const failingRequired = required.filter((n) => verdicts.get(n) === 'failure');
  const otherTrouble = [...verdicts].some(
    ([name, v]) => !required.includes(name) && v !== 'success',
  );
  let state: MergeableState = 'clean';
  if (pull.draft) state = 'draft';
  else if (behind && repo.protection.get(pull.baseRef)?.strict) state = 'behind';
  else if (pendingRequired.length > 0 || failingRequired.length > 0) state = 'blocked';
  else if (otherTrouble) state = 'unstable';
  return { mergeable: true, state, conflicts, pendingRequired, failingRequired, behind };
}
