import type { Core } from '../core.js';
import { branchSha, createCommit, isAncestor, resolveRef, threeWayMerge } from '../git.js';
import type { Account, Commit, Repo } from '../model.js';
import { HttpError } from '../server/http.js';
import { openPullsWithHead, type Sent } from './pull-events.js';
import { moveBranch } from './refs.js';
import { workflowChangedBy } from './update-branch.js';

export interface BranchMergeInput {
  /** The branch merged into. */
  base: string;
  /** What is merged: a branch or a commit. */
  head: string;
  message?: string;
}

/**
 * `POST /repos/{o}/{r}/merges` ("Merge a branch"), as GitHub answers it: 404 when the branch or
 * `head` does not exist, 204 when the branch holds `head` already, 409 on a conflict (or one a
 * test set on a PR from the branch), 403 when an App without `workflows` would push a change to a
 * workflow file; otherwise a merge commit whose parents are the branch's head, as it is when the
 * call lands, and `head`, authored by the caller and pushed to the branch (its push and PR
 * webhooks): null for the 204.
 */
export function mergeIntoBranch(
  core: Core,
  repo: Repo,
  input: BranchMergeInput,
  by: Account,
  mayWriteWorkflows: boolean,
): { commit: Commit; sent: Sent } | null {
  const ours = branchSha(repo, input.base);
  if (!ours) throw new HttpError(404, 'Base does not exist');
  const theirs = resolveRef(repo, input.head);
  if (!theirs) throw new HttpError(404, 'Head does not exist');
  if (isAncestor(repo, theirs, ours)) return null;
  const merged = threeWayMerge(repo, ours, theirs);
  const conflictSet = openPullsWithHead(core, repo, input.base).some((p) => p.pull.forcedConflict);
  if (!merged.ok || conflictSet) throw new HttpError(409, 'Merge conflict');
  const workflow = workflowChangedBy(repo.commits.get(ours)?.tree ?? {}, merged.tree);
  if (workflow !== undefined && !mayWriteWorkflows)
    throw new HttpError(
      403,
      `refusing to allow a GitHub App to create or update workflow ${workflow} without workflows permission`,
    );
  const commit = createCommit(core, repo, {
    parents: [ours, theirs],
    message: input.message ?? `Merge ${theirs} into ${input.base}`,
    tree: merged.tree,
    author: by,
  });
  return { commit, sent: moveBranch(core, repo, input.base, commit.sha, by) };
}
