import { describe, expect, it } from 'vitest';
import { decideDispatchFailure } from '../../../src/core/lifecycle/index.js';

/** docs/lifecycle.md step 4: GitHub's refusal of a dispatch against a failure that may pass. */
describe('decideDispatchFailure', () => {
  it.each([
    { status: 404, planner: false, kind: 'fail_task' },
    { status: 422, planner: false, kind: 'fail_task' },
    { status: 404, planner: true, kind: 'planner_refused' },
    { status: 422, planner: true, kind: 'planner_refused' },
    { status: 500, planner: false, kind: 'retry_later' },
    { status: 502, planner: true, kind: 'retry_later' },
    { status: 403, planner: false, kind: 'retry_later' },
    { status: 429, planner: false, kind: 'retry_later' },
    { status: undefined, planner: false, kind: 'retry_later' },
  ])('$status (planner: $planner) → $kind', ({ status, planner, kind }) => {
    expect(decideDispatchFailure(status, 'No ref found', planner).kind).toBe(kind);
  });

  it("names GitHub's answer in the task's failure", () => {
    expect(decideDispatchFailure(422, 'Unexpected inputs provided: ["x"]', false)).toEqual({
      kind: 'fail_task',
      reason: 'GitHub refused the dispatch (422): Unexpected inputs provided: ["x"]',
    });
  });
});
