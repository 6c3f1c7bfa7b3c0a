import type { Core } from '../core.js';
import { branchSha, createCommit, isAncestor, threeWayMerge } from '../git.js';
import type { Account, Pull, Repo, Tree } from '../model.js';
import { HttpError, validationFailed } from '../server/http.js';
import type { Sent } from './pull-events.js';
import { moveBranch } from './refs.js';

/**
 * An update of a PR's branch GitHub has not merged yet (`core.deferBranchUpdates`): an
 * update-branch it answered 202 to, or a merge into the branch (`POST /merges`) it has not answered.
 */
export interface HeldBranchUpdate {
  repo: string;
  /** The PR whose branch it updates. */
  number: number;
  /**
   * Merges now: the head it made (none: nothing merged), and the webhooks it sent. A merge into the
   * branch is answered once `answerAfter` settles (at once without it).
   */
  land(answerAfter?: Promise<void>): { sha?: string; sent: Sent };
}

/**
 * `PUT /pulls/{n}/update-branch`: GitHub checks the request, answers 202, and merges the base
 * into the head. With `core.deferBranchUpdates` the merge waits for `releaseBranchUpdates`, as
 * GitHub's does for a moment after its 202 ("Updating pull request branch."): another push may
 * land on the head first.
 */
export function updateBranch(
  core: Core,
  repo: Repo,
  pull: Pull,
  by: Account,
  expectedHeadSha?: string,
  mayWriteWorkflows = true,
): Sent {
  if (pull.issue.state !== 'open') throw validationFailed('Pull request is closed');
  if (expectedHeadSha !== undefined && expectedHeadSha !== pull.headSha) {
    throw validationFailed("expected head sha didn't match current head ref.");
  }
  const baseSha = branchSha(repo, pull.baseRef);
  if (!baseSha) throw validationFailed('Base branch does not exist');
  if (isAncestor(repo, baseSha, pull.headSha))
    throw validationFailed('There are no new commits on the base branch.');
  const merged = threeWayMerge(repo, pull.headSha, baseSha);
  if (!merged.ok || pull.forcedConflict)
    throw validationFailed('merge conflict between base and head');
  // The merge is a push to the head branch: an App without `workflows` may not make one that
  // changes a workflow file (the route's OpenAPI description lists 202, 403 and 422).
  const workflow = workflowChangedBy(repo.commits.get(pull.headSha)?.tree ?? {}, merged.tree);
  if (workflow !== undefined && !mayWriteWorkflows)
    throw new HttpError(
      403,
      `refusing to allow a GitHub App to create or update workflow ${workflow} without workflows permission`,
    );
  if (core.deferBranchUpdates) {
    const from = pull.headSha;
    core.heldBranchUpdates.push({
      repo: repo.fullName,
      number: pull.number,
      land: () => landBranchUpdate(core, repo.fullName, pull.number, from, by),
    });
    return [];
  }
  return mergeBaseInto(core, pull, by, baseSha, merged.tree).sent;
}

/**
 * A held update's merge, at the PR's base as it is now. GitHub does not document what its
 * deferred update does when the head moved after its 202; the double makes none (returns no
 * sha), as it does when the PR closed, the base has nothing more to bring in, or the merge now
 * conflicts.
 */
function landBranchUpdate(
  core: Core,
  repoName: string,
  number: number,
  from: string,
  by: Account,
): { sha?: string; sent: Sent } {
  const repo = core.repo(repoName);
  const pull = repo.pulls.get(number);
  if (!pull || pull.issue.state !== 'open' || pull.headSha !== from) return { sent: [] };
  const baseSha = branchSha(repo, pull.baseRef);
  if (!baseSha || isAncestor(repo, baseSha, pull.headSha)) return { sent: [] };
  const merged = threeWayMerge(repo, pull.headSha, baseSha);
  if (!merged.ok || pull.forcedConflict) return { sent: [] };
  return mergeBaseInto(core, pull, by, baseSha, merged.tree);
}

/**
 * The workflow file a merge's tree creates, changes or deletes against the branch's: a push an App
 * without `workflows` may not make. GitHub answers 403 with this message, the path unquoted unlike
 * git's push refusal: the API response quoted in chdsbd/kodiak#853.
 */
export function workflowChangedBy(before: Tree, after: Tree): string | undefined {
  return Object.keys({ ...before, ...after })
    .filter((path) => path.startsWith('.github/workflows/'))
    .find((path) => before[path] !== after[path]);
}

/** GitHub's update merge: "Merge branch '<base>' into <head>", the old head its first parent. */
function mergeBaseInto(
  core: Core,
  pull: Pull,
  by: Account,
  baseSha: string,
  tree: Tree,
): { sha: string; sent: Sent } {
  const c = createCommit(core, pull.headRepo, {
    parents: [pull.headSha, baseSha],
    message: `Merge branch '${pull.baseRef}' into ${pull.headRef}`,
    tree,
    author: by,
  });
  return { sha: c.sha, sent: moveBranch(core, pull.headRepo, pull.headRef, c.sha, by) };
}
