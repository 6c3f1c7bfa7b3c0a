import { describe, expect, it } from 'vitest';
import {
  decideChecksCompleted,
  type ChecksCompletedEffect,
  type ChecksCompletedRun,
} from '../../../src/core/merge/index.js';

/** docs/lifecycle.md step 9: finished checks on a head re-decide the merges of its runs. */
describe('decideChecksCompleted', () => {
  const active = (runId: number): ChecksCompletedRun => ({ runId, finished: false });
  const finished = (runId: number): ChecksCompletedRun => ({ runId, finished: true });

  it.each<{ name: string; runs: ChecksCompletedRun[]; expected: ChecksCompletedEffect[] }>([
    {
      name: 'a head no agent PR has',
      runs: [],
      expected: [{ kind: 'none', reason: 'no agent PR has this head' }],
    },
    {
      name: 'the PR of a finished run',
      runs: [finished(1)],
      expected: [{ kind: 'none', reason: 'the runs of the PRs with this head have finished' }],
    },
    {
      name: 'the PR of an active run',
      runs: [active(1)],
      expected: [{ kind: 'advance', runId: 1 }],
    },
    {
      name: 'two PRs of one run with the same head decide once',
      runs: [active(1), active(1)],
      expected: [{ kind: 'advance', runId: 1 }],
    },
    {
      name: 'each active run decides, a finished one does not',
      runs: [active(2), finished(1), active(3)],
      expected: [
        { kind: 'advance', runId: 2 },
        { kind: 'advance', runId: 3 },
      ],
    },
  ])('$name', ({ runs, expected }) => {
    expect(decideChecksCompleted({ runs })).toEqual(expected);
  });
});
