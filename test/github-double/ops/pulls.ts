import type { Core } from '../core.js';
import { branchSha, compare, createCommit, isAncestor, threeWayMerge } from '../git.js';
import { nodeId } from '../ids.js';
import type { Account, Pull, Repo, Review, ReviewState } from '../model.js';
import { userJson } from '../render/accounts.js';
import { pullJson, reviewJson } from '../render/pulls.js';
import { HttpError, validationFailed } from '../server/http.js';
import { newIssue } from './issues.js';
import { mergeability } from './mergeability.js';
import { roleOf } from './repos.js';
import { recordPullHead, sendPullEvent, type Sent } from './pull-events.js';
import { deleteBranch, moveBranch } from './refs.js';
import { startPullRequestCi } from './actions.js';
import {
  openThreads,
  placeDrafts,
  replyInThread,
  sendCommentCreated,
  type DraftComment,
} from './review-threads.js';

export interface OpenPullInput {
  headRepo: Repo;
  headRef: string;
  baseRef: string;
  title: string;
  body: string | null;
  by: Account;
  draft?: boolean;
  maintainerCanModify?: boolean;
}

export function openPull(core: Core, repo: Repo, input: OpenPullInput): { pull: Pull; sent: Sent } {
  const baseSha = branchSha(repo, input.baseRef);
  if (!baseSha)
    throw validationFailed('Validation Failed', [
      { resource: 'PullRequest', field: 'base', code: 'invalid' },
    ]);
  const headSha = branchSha(input.headRepo, input.headRef);
  if (!headSha)
    throw validationFailed('Validation Failed', [
      { resource: 'PullRequest', field: 'head', code: 'invalid' },
    ]);
  const label = `${input.headRepo.owner.login}:${input.headRef}`;
  const duplicate = [...repo.pulls.values()].find(
    (p) =>
      p.issue.state === 'open' &&
      p.headRepo === input.headRepo &&
      p.headRef === input.headRef &&
      p.baseRef === input.baseRef,
  );
  if (duplicate) {
    throw validationFailed('Validation Failed', [
      {
        resource: 'PullRequest',
        code: 'custom',
        message: `A pull request already exists for ${label}.`,
      },
    ]);
  }
  if (isAncestor(repo, headSha, baseSha)) {
    throw validationFailed('Validation Failed', [
      {
        resource: 'PullRequest',
        code: 'custom',
        message: `No commits between ${input.baseRef} and ${label}`,
      },
    ]);
  }
  const issue = newIssue(core, repo, {
    title: input.title,
    body: input.body,
    user: input.by,
    isPull: true,
  });
  const pull: Pull = {
    number: issue.number,
    id: issue.id,
    nodeId: nodeId('PR', issue.id),
    issue,
    headRepo: input.headRepo,
    headRef: input.headRef,
    headSha,
    baseRef: input.baseRef,
    draft: input.draft ?? false,
    merged: false,
    mergedAt: null,
    mergedBy: null,
    mergeCommitSha: null,
    forcedConflict: false,
    unknownReads: core.mergeabilityLag,
    maintainerCanModify: input.maintainerCanModify ?? input.headRepo !== repo,
    reviews: [],
    threads: [],
    requestedReviewers: [],
  };
  repo.pulls.set(pull.number, pull);
  recordPullHead(repo, pull);
  core.changed('pull', { repo: repo.fullName, number: pull.number });
  return {
    pull,
    sent: [
      ...startPullRequestCi(core, repo, pull, input.by),
      sendPullEvent(core, repo, pull, 'opened', input.by),
    ],
  };
}

export function changeBase(core: Core, repo: Repo, pull: Pull, base: string, by: Account): Sent {
  if (base === pull.baseRef) return [];
  if (!branchSha(repo, base))
    throw validationFailed('Validation Failed', [
      { resource: 'PullRequest', field: 'base', code: 'invalid' },
    ]);
  const from = pull.baseRef;
  pull.baseRef = base;
  core.changed('pull', { repo: repo.fullName, number: pull.number });
  return [
    sendPullEvent(core, repo, pull, 'edited', by, {
      changes: { base: { ref: { from }, sha: { from: branchSha(repo, from) } } },
    }),
  ];
}

/** A person (or an App) edits the PR's description: GitHub sends `pull_request.edited`. */
export function editPullBody(core: Core, repo: Repo, pull: Pull, body: string, by: Account): Sent {
  const from = pull.issue.body ?? '';
  if (body === from) return [];
  pull.issue.body = body;
  pull.issue.updatedAt = core.now();
  core.changed('pull', { repo: repo.fullName, number: pull.number });
  return [sendPullEvent(core, repo, pull, 'edited', by, { changes: { body: { from } } })];
}

export type MergeMethod = 'merge' | 'squash' | 'rebase';

export interface MergeInput {
  method?: MergeMethod;
  sha?: string;
  commitTitle?: string;
  commitMessage?: string;
  // The merge queue lands PRs itself; direct merges are refused on queued branches.
  viaQueue?: boolean;
}

export function mergeBlocker(
  core: Core,
  repo: Repo,
  pull: Pull,
  input: MergeInput,
): HttpError | null {
  if (pull.merged || pull.issue.state !== 'open')
    return new HttpError(405, 'Pull Request is not mergeable');
  if (input.sha !== undefined && input.sha !== pull.headSha) {
    return new HttpError(409, 'Head branch was modified. Review and try the merge again.');
  }
  if (!input.viaQueue && repo.mergeQueues.has(pull.baseRef)) {
    return new HttpError(
      405,
      'Repository rule violations found\n\nChanges must be made through the merge queue\n\n',
    );
  }
  const m = mergeability(core, repo, pull, { fresh: true });
  switch (m.state) {
    case 'dirty':
      return new HttpError(405, 'Pull Request is not mergeable');
    case 'draft':
      return new HttpError(405, 'Pull Request is still a draft');
    case 'behind':
      return new HttpError(405, 'Head branch is not up to date with the base branch');
    case 'blocked': {
      const failing = m.failingRequired[0];
      return new HttpError(
        405,
        failing
          ? `Required status check "${failing}" is failing.`
          : `Required status check "${m.pendingRequired[0] ?? ''}" is expected.`,
      );
    }
    default:
      return null;
  }
}

// Lands `pull` on its base with `method`; returns the new base head.
export function mergePull(
  core: Core,
  repo: Repo,
  pull: Pull,
  by: Account,
  input: MergeInput,
): { sha: string; sent: Sent } {
  const blocker = mergeBlocker(core, repo, pull, input);
  if (blocker) throw blocker;
  const baseSha = branchSha(repo, pull.baseRef);
  const merged = baseSha ? threeWayMerge(repo, baseSha, pull.headSha) : undefined;
  if (!baseSha || !merged?.ok) throw new HttpError(405, 'Pull Request is not mergeable');
  const method = input.method ?? 'merge';
  const title = input.commitTitle;
  let newHead: string;
  if (method === 'merge') {
    const message = `${title ?? `Merge pull request #${pull.number} from ${pull.headRepo.owner.login}/${pull.headRef}`}\n\n${input.commitMessage ?? pull.issue.title}`;
    newHead = createCommit(core, repo, {
      parents: [baseSha, pull.headSha],
      message,
      tree: merged.tree,
      author: by,
    }).sha;
  } else if (method === 'squash') {
    const message =
      `${title ?? `${pull.issue.title} (#${pull.number})`}\n\n${input.commitMessage ?? ''}`.trimEnd();
    newHead = createCommit(core, repo, {
      parents: [baseSha],
      message,
      tree: merged.tree,
      author: pull.issue.user,
    }).sha;
  } else {
    newHead = baseSha;
    const replay = compare(repo, baseSha, pull.headSha).commits.filter(
      (s) => (repo.commits.get(s)?.parents.length ?? 0) < 2,
    );
    replay.forEach((sha, i) => {
      const original = repo.commits.get(sha);
      const step = threeWayMerge(repo, baseSha, sha);
      const tree = i === replay.length - 1 || !step.ok ? merged.tree : step.tree;
      newHead = createCommit(core, repo, {
        parents: [newHead],
        message: original?.message ?? 'rebase',
        tree,
        author: original?.author ?? by,
      }).sha;
    });
  }
  const now = core.now();
  pull.merged = true;
  pull.mergedAt = now;
  pull.mergedBy = by;
  pull.mergeCommitSha = newHead;
  pull.issue.state = 'closed';
  pull.issue.closedAt = now;
  pull.issue.updatedAt = now;
  pull.issue.closedBy = by;
  const queue = repo.mergeQueues.get(pull.baseRef);
  if (queue) queue.entries = queue.entries.filter((e) => e.pull !== pull);
  core.changed('pull', { repo: repo.fullName, number: pull.number, merged: true });
  const sent: Sent = [sendPullEvent(core, repo, pull, 'closed', by)];
  sent.push(...moveBranch(core, repo, pull.baseRef, newHead, by));
  if (repo.deleteBranchOnMerge && pull.headRepo === repo)
    sent.push(...deleteMergedHead(core, repo, pull, by));
  return { sha: newHead, sent };
}

/**
 * "Automatically delete head branches": GitHub first retargets the open PRs based on the merged
 * PR's head branch to the merged PR's base (each gets `pull_request.edited` with `changes.base`),
 * then deletes the branch (docs.github.com, "Changing the base branch of a pull request").
 */
function deleteMergedHead(core: Core, repo: Repo, merged: Pull, by: Account): Sent {
  const sent: Sent = [];
  for (const other of repo.pulls.values()) {
    if (other.issue.state === 'open' && other.baseRef === merged.headRef)
      sent.push(...changeBase(core, repo, other, merged.baseRef, by));
  }
  sent.push(...deleteBranch(core, repo, merged.headRef, by));
  return sent;
}

export type ReviewEvent = 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT';

export interface ReviewInput {
  event?: ReviewEvent;
  body?: string;
  commitId?: string;
  comments?: DraftComment[];
}

function refuseReview(message: string): Error {
  return validationFailed('Unprocessable Entity', [
    { resource: 'PullRequestReview', code: 'custom', message },
  ]);
}

function storeReview(
  core: Core,
  repo: Repo,
  pull: Pull,
  by: Account,
  state: ReviewState,
  body: string,
  commitId: string,
): Review {
  const id = core.ids.next('review');
  const review: Review = {
    id,
    nodeId: nodeId('PRR', id),
    user: by,
    body,
    state,
    commitId,
    submittedAt: state === 'PENDING' ? null : core.now(),
  };
  pull.reviews.push(review);
  // A submitted review answers the request for it, as on GitHub.
  if (state !== 'PENDING')
    pull.requestedReviewers = pull.requestedReviewers.filter((a) => a !== by);
  core.changed('review', { repo: repo.fullName, number: pull.number, id });
  return review;
}

function sendReviewEvent(
  core: Core,
  repo: Repo,
  pull: Pull,
  review: Review,
  by: Account,
  action: 'submitted' | 'dismissed' = 'submitted',
): Promise<unknown> {
  return core.webhooks.sendWebhook({
    event: 'pull_request_review',
    action,
    repo,
    sender: by,
    body: {
      // Webhooks spell review states in lower case, unlike the REST API.
      review: { ...reviewJson(core, repo, pull, review), state: review.state.toLowerCase() },
      pull_request: pullJson(core, repo, pull),
    },
  });
}

/**
 * `POST /pulls/{n}/reviews`: its line comments open one thread each (sending
 * `pull_request_review_comment.created` for each, then `pull_request_review.submitted`). A
 * comment off the PR's diff refuses the whole review.
 */
export function createReview(
  core: Core,
  repo: Repo,
  pull: Pull,
  by: Account,
  input: ReviewInput,
): { review: Review; sent: Sent } {
  const own = by.login.toLowerCase() === pull.issue.user.login.toLowerCase();
  if (own && input.event === 'APPROVE') throw refuseReview('Can not approve your own pull request');
  if (own && input.event === 'REQUEST_CHANGES')
    throw refuseReview('Can not request changes on your own pull request');
  if ((input.event === 'REQUEST_CHANGES' || input.event === 'COMMENT') && !input.body)
    throw refuseReview('Body is required for this review event');
  const commitId = input.commitId ?? pull.headSha;
  if (!repo.commits.has(commitId)) throw validationFailed(`No commit found for SHA: ${commitId}`);
  const state: ReviewState =
    input.event === 'APPROVE'
      ? 'APPROVED'
      : input.event === 'REQUEST_CHANGES'
        ? 'CHANGES_REQUESTED'
        : input.event === 'COMMENT'
          ? 'COMMENTED'
          : 'PENDING';
  const drafts = input.comments ?? [];
  if (state === 'PENDING' && drafts.length > 0)
    throw new Error('github double: pending reviews with comments are not modelled');
  const placed = placeDrafts(repo, pull, commitId, drafts);
  const review = storeReview(core, repo, pull, by, state, input.body ?? '', commitId);
  if (state === 'PENDING') return { review, sent: [] };
  const comments = openThreads(core, pull, review, placed);
  const sent: Sent = comments.map((c) => sendCommentCreated(core, repo, pull, c, by));
  sent.push(sendReviewEvent(core, repo, pull, review, by));
  return { review, sent };
}

/** Who may dismiss a review: people with write access or more, or a token holding the route's App permission. */
function mayDismiss(repo: Repo, by: Account): boolean {
  // An App's (or a workflow's) token reached the route with `pull_requests: write`
  // (server/permissions.ts); a person needs write access.
  if (by.type === 'Bot') return true;
  const role = roleOf(repo, by.login);
  return role === 'write' || role === 'maintain' || role === 'admin';
}

/**
 * `PUT /pulls/{n}/reviews/{id}/dismissals`: the review becomes DISMISSED and
 * `pull_request_review.dismissed` is sent (state `dismissed`, sender the dismisser).
 * "Dismissing a pull request review" (docs.github.com): "repository administrators or people with
 * write access can dismiss a review"; anyone else is answered 403 (the double's wording). GitHub
 * refuses a review that is neither approving nor requesting changes with 422 "Validation Failed"
 * and the reason as a string error ("Can not dismiss a commented pull request review", "... a
 * dismissed ..."; quoted in MorrisonCole/pr-lint-action#155 and defenseunicorns/lula#207). The
 * protected-branch list of who may dismiss is not modelled.
 */
export function dismissReview(
  core: Core,
  repo: Repo,
  pull: Pull,
  reviewId: number,
  by: Account,
): { review: Review; sent: Sent } {
  const review = pull.reviews.find((r) => r.id === reviewId);
  if (!review) throw new HttpError(404, 'Not Found');
  if (!mayDismiss(repo, by))
    throw new HttpError(403, `${by.login} may not dismiss reviews on ${repo.fullName}`);
  if (review.state !== 'APPROVED' && review.state !== 'CHANGES_REQUESTED')
    throw new HttpError(422, 'Validation Failed', {
      errors: [`Can not dismiss a ${review.state.toLowerCase()} pull request review`],
    });
  review.state = 'DISMISSED';
  core.changed('review', { repo: repo.fullName, number: pull.number, id: review.id });
  const sent: Sent = [sendReviewEvent(core, repo, pull, review, by, 'dismissed')];
  return { review, sent };
}

/** `POST /pulls/{n}/comments/{comment_id}/replies` (see replyInThread). */
export function replyToReviewComment(
  core: Core,
  repo: Repo,
  pull: Pull,
  commentId: number,
  by: Account,
  body: string,
): { comment: ReturnType<typeof replyInThread>['comment']; sent: Sent } {
  let review: Review | undefined;
  const { comment, sent } = replyInThread(core, repo, pull, commentId, by, body, (who, text) => {
    review = storeReview(core, repo, pull, who, 'COMMENTED', text, pull.headSha);
    return review;
  });
  if (review) sent.push(sendReviewEvent(core, repo, pull, review, by));
  return { comment, sent };
}

function reviewerOf(core: Core, repo: Repo, login: string): Account {
  const account = core.accounts.get(login.toLowerCase());
  const role = repo.roles.get(login.toLowerCase()) ?? (repo.owner === account ? 'admin' : 'none');
  // GitHub only asks collaborators for reviews.
  if (!account || role === 'none')
    throw validationFailed(
      'Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the ' +
        `${repo.fullName} repository.`,
    );
  return account;
}

/** `POST /pulls/{n}/requested_reviewers`: `pull_request.review_requested` per new reviewer. */
export function requestReviewers(
  core: Core,
  repo: Repo,
  pull: Pull,
  logins: readonly string[],
  by: Account,
): Sent {
  if (logins.some((l) => l.toLowerCase() === pull.issue.user.login.toLowerCase()))
    throw validationFailed('Review cannot be requested from pull request author.');
  const accounts = logins.map((l) => reviewerOf(core, repo, l));
  const sent: Sent = [];
  for (const reviewer of accounts) {
    if (pull.requestedReviewers.includes(reviewer)) continue;
    pull.requestedReviewers.push(reviewer);
    core.changed('review-request', {
      repo: repo.fullName,
      number: pull.number,
      login: reviewer.login,
    });
    sent.push(
      sendPullEvent(core, repo, pull, 'review_requested', by, {
        requested_reviewer: userJson(core, reviewer),
      }),
    );
  }
  return sent;
}

/** `DELETE /pulls/{n}/requested_reviewers`: `pull_request.review_request_removed` per reviewer. */
export function removeRequestedReviewers(
  core: Core,
  repo: Repo,
  pull: Pull,
  logins: readonly string[],
  by: Account,
): Sent {
  const sent: Sent = [];
  for (const login of logins) {
    const reviewer = pull.requestedReviewers.find(
      (a) => a.login.toLowerCase() === login.toLowerCase(),
    );
    if (!reviewer) continue;
    pull.requestedReviewers = pull.requestedReviewers.filter((a) => a !== reviewer);
    core.changed('review-request', { repo: repo.fullName, number: pull.number, login });
    sent.push(
      sendPullEvent(core, repo, pull, 'review_request_removed', by, {
        requested_reviewer: userJson(core, reviewer),
      }),
    );
  }
  return sent;
}
