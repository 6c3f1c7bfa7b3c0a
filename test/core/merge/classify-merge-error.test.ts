import { describe, expect, it } from 'vitest';
import { classifyMergeError, type MergeErrorKind } from '../../../src/core/merge/index.js';

// GitHub's own wording, as its REST and GraphQL APIs answer.
const RULESET = (violation: string) => `Repository rule violations found\n\n${violation}\n\n`;

describe('classifyMergeError', () => {
  it.each<{ status: number; message: string; kind: MergeErrorKind }>([
    // The sha guard: re-read, never retry blindly.
    {
      status: 409,
      message: 'Head branch was modified. Review and try the merge again.',
      kind: 'reread',
    },
    { status: 409, message: 'Conflict', kind: 'reread' },
    // Transient.
    {
      status: 405,
      message: 'Base branch was modified. Review and try the merge again.',
      kind: 'retry_later',
    },
    { status: 405, message: 'Required status check "ci" is expected.', kind: 'retry_later' },
    {
      status: 405,
      message: 'Required status check "ci/test" is in progress.',
      kind: 'retry_later',
    },
    { status: 405, message: '2 of 3 required status checks are expected.', kind: 'retry_later' },
    {
      status: 405,
      message: RULESET('Required status check "ci" is expected.'),
      kind: 'retry_later',
    },
    { status: 405, message: 'Merge already in progress', kind: 'retry_later' },
    {
      status: 403,
      message: 'API rate limit exceeded for installation ID 1234567.',
      kind: 'retry_later',
    },
    {
      status: 403,
      message:
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      kind: 'retry_later',
    },
    { status: 429, message: 'Too Many Requests', kind: 'retry_later' },
    { status: 500, message: 'Server Error', kind: 'retry_later' },
    { status: 502, message: '', kind: 'retry_later' },
    // Behind.
    {
      status: 405,
      message: 'Head branch is not up to date with the base branch',
      kind: 'update_branch',
    },
    { status: 405, message: RULESET('Head branch is out of date.'), kind: 'update_branch' },
    // Conflicts.
    { status: 405, message: 'Merge conflict', kind: 'send_back' },
    // Needs a person or a setting.
    {
      status: 405,
      message: 'At least 1 approving review is required by reviewers with write access.',
      kind: 'blocked',
    },
    {
      status: 405,
      message: RULESET('At least 2 approving reviews are required by reviewers with write access.'),
      kind: 'blocked',
    },
    {
      status: 405,
      message: RULESET('Changes must be made through a pull request.'),
      kind: 'blocked',
    },
    {
      status: 405,
      message: RULESET('Changes must be made through the merge queue'),
      kind: 'blocked',
    },
    { status: 405, message: 'Repository rule violations found', kind: 'blocked' },
    {
      status: 405,
      message: 'Protected branch update failed for refs/heads/main.',
      kind: 'blocked',
    },
    { status: 405, message: 'Merge commits are not allowed on this repository.', kind: 'blocked' },
    { status: 405, message: 'Squash merges are not allowed on this repository.', kind: 'blocked' },
    { status: 405, message: RULESET('Commits must have verified signatures.'), kind: 'blocked' },
    { status: 403, message: 'Resource not accessible by integration', kind: 'blocked' },
    { status: 403, message: 'Must have admin rights to Repository.', kind: 'blocked' },
    // Vague: the PR's mergeable_state on a fresh read says which it is.
    { status: 405, message: 'Pull Request is not mergeable', kind: 'reread' },
    { status: 405, message: RULESET('Required status check "ci" is failing.'), kind: 'reread' },
    // Done already.
    {
      status: 405,
      message: 'Pull Request is not mergeable: already merged',
      kind: 'already_merged',
    },
    { status: 422, message: 'Pull request is already merged', kind: 'already_merged' },
    { status: 200, message: 'Pull request is already in the queue', kind: 'already_queued' },
    // Nothing we know.
    { status: 404, message: 'Not Found', kind: 'unknown' },
    { status: 422, message: 'Validation Failed', kind: 'unknown' },
  ])('$status "$message" → $kind', ({ status, message, kind }) => {
    expect(classifyMergeError(status, message).kind).toBe(kind);
  });

  it("keeps GitHub's words in the reason, on one line", () => {
    expect(classifyMergeError(405, RULESET('Required status check "ci" is expected.'))).toEqual({
      kind: 'retry_later',
      reason:
        'required checks have not finished (GitHub: Repository rule violations found Required status check "ci" is expected.)',
    });
    expect(classifyMergeError(404, 'Not Found').reason).toBe('HTTP 404 (GitHub: Not Found)');
    expect(classifyMergeError(502, '').reason).toBe('GitHub server error 502');
  });

  it('cuts a very long message', () => {
    const { reason } = classifyMergeError(
      405,
      `Repository rule violations found ${'x'.repeat(5000)}`,
    );
    expect(reason.length).toBeLessThan(400);
    expect(reason).toContain('…');
  });

  it('treats a server error as transient whatever its body says', () => {
    expect(classifyMergeError(503, 'Merge conflict').kind).toBe('retry_later');
  });
});
