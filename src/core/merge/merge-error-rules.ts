/**
 * What the caller does with each class of refusal from `PUT /pulls/{n}/merge` (Octokit retries
 * off) or GraphQL `enqueuePullRequest`. Tide sorts merge errors on purpose; so do we.
 */
export type MergeErrorKind =
  // Passes on its own (base moved under a concurrent merge, required checks still running, rate
  // limit, GitHub hiccup). Change nothing; the next sweep re-reads the PR and decides again. A
  // 5xx may hide a merge that did happen: re-reading first is what keeps that from doubling.
  | 'retry_later'
  // The sha guard fired (the head moved since the snapshot) or GitHub's answer is too vague to
  // act on. Re-read the PR now and run decideMerges on fresh state; never repeat the call blindly.
  | 'reread'
  // Branch protection wants the head up to date: the coordinator merges the base into it.
  | 'update_branch'
  // Conflicts with the base: send the task back to its worker in mode=fix (once per head).
  | 'send_back'
  // GitHub will not merge this without a person or a settings change (reviews, rulesets,
  // permissions, merge method). Stop trying for this head and show the reason in the status
  // comment; the review, push or settings event that fixes it triggers the next decision.
  | 'blocked'
  // The PR is merged already (someone else, or an earlier attempt that looked failed): record
  // it as merged once pull_request.closed (or a re-read) confirms.
  | 'already_merged'
  // Enqueue found the PR in the merge queue already: the goal is reached; record it as queued.
  | 'already_queued'
  // Nothing above: log it with the status and message and leave the PR for the next sweep.
  | 'unknown';

export interface MergeErrorRule {
  kind: MergeErrorKind;
  pattern: RegExp;
  /** Our words for it; GitHub's message is appended. */
  reason: string;
}

/**
 * GitHub's messages, first match wins, so specific before generic: a ruleset refusal reads
 * "Repository rule violations found\n\n<each violation>", and a missing review in it must stay
 * `blocked` while a check that is only still running is `retry_later`.
 */
export const MERGE_ERROR_RULES: readonly MergeErrorRule[] = [
  {
    kind: 'already_merged',
    pattern: /already (?:been )?merged/i,
    reason: 'the pull request is already merged',
  },
  {
    kind: 'already_queued',
    pattern: /already (?:in the (?:merge )?queue|queued|enqueued)/i,
    reason: 'the pull request is already in the merge queue',
  },
  {
    // 409 "Head branch was modified. Review and try the merge again."
    kind: 'reread',
    pattern: /head branch was modified/i,
    reason: 'the head moved since it was read (sha guard)',
  },
  {
    kind: 'reread',
    pattern:
      /expected.?head.?oid|head (?:sha|oid)\b[^.]*\b(?:did not|didn't|does not|doesn't) match/i,
    reason: 'the head moved since it was read (expectedHeadOid)',
  },
  {
    // 405 "Base branch was modified. Review and try the merge again."
    kind: 'retry_later',
    pattern: /base branch was modified/i,
    reason: 'the base branch moved during the merge',
  },
  {
    kind: 'retry_later',
    pattern: /merge already in progress/i,
    reason: 'another merge of this pull request is running',
  },
  {
    // "API rate limit exceeded for installation ID …", "You have exceeded a secondary rate limit."
    kind: 'retry_later',
    pattern: /rate limit|submitted too quickly/i,
    reason: 'rate limited',
  },
  {
    // 405 "Head branch is not up to date with the base branch"
    kind: 'update_branch',
    pattern: /not up to date|out of date|\bbehind\b/i,
    reason: 'branch protection wants the branch up to date with its base',
  },
  {
    kind: 'send_back',
    pattern: /merge conflict/i,
    reason: 'the branch conflicts with its base',
  },
  {
    // "At least 1 approving review is required by reviewers with write access."
    kind: 'blocked',
    pattern:
      /approving reviews? (?:is|are) required|reviews? (?:is|are) required|code owner|changes requested/i,
    reason: 'required reviews are missing',
  },
  {
    kind: 'blocked',
    pattern: /through the merge queue/i,
    reason: 'the base branch only takes merges through its merge queue',
  },
  {
    kind: 'blocked',
    pattern: /changes must be made through a pull request/i,
    reason: 'a ruleset refuses the merge',
  },
  {
    kind: 'blocked',
    pattern: /resource not accessible by integration/i,
    reason: 'the app lacks a permission for this',
  },
  {
    // "Merge commits are not allowed on this repository." (and squash / rebase)
    kind: 'blocked',
    pattern: /(?:merge commits|squash merges|rebase merges|merges?) (?:are|is) not allowed/i,
    reason: 'merge.method is not allowed in this repository',
  },
  {
    kind: 'blocked',
    pattern: /verified signatures|required workflow/i,
    reason: 'a ruleset refuses the merge',
  },
  {
    // 'Required status check "ci" is expected.', '2 of 3 required status checks are expected.'
    kind: 'retry_later',
    pattern: /status checks? [^\n]*?\b(?:is|are) (?:expected|in progress|pending|queued)/i,
    reason: 'required checks have not finished',
  },
  {
    // A required check failed: decideMerges sees which one on a fresh read.
    kind: 'reread',
    pattern: /status checks? [^\n]*?\b(?:is|are|has|have) (?:failing|failed|not succeeded)/i,
    reason: 'a required check did not pass',
  },
  {
    kind: 'blocked',
    pattern: /repository rule violations? found|protected branch/i,
    reason: 'branch protection or a ruleset refuses the merge',
  },
  {
    // 405 "Pull Request is not mergeable": GitHub says this for conflicts, blocked protection
    // and more. The PR's mergeable_state on a fresh read tells them apart (and shows a PR that
    // merged meanwhile), so the right move is to look again, not to guess a fix.
    kind: 'reread',
    pattern: /not mergeable/i,
    reason: 'GitHub reports the pull request not mergeable right now',
  },
];
