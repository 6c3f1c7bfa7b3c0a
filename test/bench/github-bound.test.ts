import { describe, expect, it } from 'vitest';
import {
  githubBoundTasksPerHour,
  isContentCreation,
  WORKER_CALLS_PER_ATTEMPT,
} from '../../bench/lib/github-bound.js';
import { countWorkerAttempt, emptyCounts, ownerOf } from '../../bench/lib/installation-counts.js';

/** The production benchmark's bound on one installation's tasks an hour (bench/lib/github-bound.ts). */
describe('githubBoundTasksPerHour', () => {
  it('is the tightest of the write, content and call limits', () => {
    expect(githubBoundTasksPerHour({ writes: 7.5, contentCreations: 1, calls: 10 })).toBe(480);
    expect(githubBoundTasksPerHour({ writes: 5, contentCreations: 1.04, calls: 10 })).toBeCloseTo(
      480.77,
      2,
    );
    expect(githubBoundTasksPerHour({ writes: 5, contentCreations: 1, calls: 12.5 })).toBe(400);
    expect(githubBoundTasksPerHour({ writes: 5, contentCreations: 1, calls: 5 })).toBe(500);
  });

  it('ignores a limit nothing counts against', () => {
    expect(githubBoundTasksPerHour({ writes: 0, contentCreations: 0, calls: 10 })).toBe(500);
  });
});

describe('content creations', () => {
  it('are new PRs, issues, comments and reviews, not edits, labels or merges', () => {
    expect(isContentCreation('POST /repos/{owner}/{repo}/pulls')).toBe(true);
    expect(isContentCreation('POST /repos/{owner}/{repo}/issues/{issue_number}/comments')).toBe(
      true,
    );
    expect(isContentCreation('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}')).toBe(
      false,
    );
    expect(isContentCreation('POST /repos/{owner}/{repo}/issues/{issue_number}/labels')).toBe(
      false,
    );
    expect(isContentCreation('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge')).toBe(false);
  });
});

describe("the worker's calls per attempt", () => {
  it('add a lookup and a PR, or a lookup and an update, or the plan comment', () => {
    const counts = emptyCounts();
    countWorkerAttempt(counts, 'opens');
    expect(counts).toMatchObject({ calls: 1, writes: 1, contentCreations: 1 });
    countWorkerAttempt(counts, 'updates');
    expect(counts).toMatchObject({ calls: 3, writes: 2, contentCreations: 1 });
    countWorkerAttempt(counts, 'plan');
    expect(counts).toMatchObject({ calls: 4, writes: 3, contentCreations: 2 });
    expect(counts.coordinatorWrites).toBe(0);
    expect(counts.byRoute.get('worker: GET /repos/{owner}/{repo}/pulls')).toBe(1);
    expect(WORKER_CALLS_PER_ATTEMPT.opens).toHaveLength(1);
  });

  it('are counted against the owner a path names', () => {
    expect(ownerOf('/repos/Prod-3/service/pulls')).toBe('prod-3');
    expect(ownerOf('/graphql')).toBeUndefined();
  });
});
