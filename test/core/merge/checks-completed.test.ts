import { describe, expect, it } from 'vitest';
import {
  checkResultFactsOf,
  decideCheckResult,
  ORDER_CHECK_NAME,
  type CheckResultFacts,
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

/** Which completed check runs and suites re-decide merges: not the App's own. */
describe('decideCheckResult', () => {
  const APP = 42;
  const HEAD = 'c0ffee0123456789abcdef0123456789abcdef01';
  it.each<{ name: string; facts: CheckResultFacts; appId?: number; expected: unknown }>([
    {
      name: 'another App’s check run on a head',
      facts: { name: 'ci/test', appId: 15368, headSha: HEAD },
      appId: APP,
      expected: [{ kind: 'decideHead', sha: HEAD }],
    },
    {
      name: 'another App’s check suite (no name)',
      facts: { appId: 15368, headSha: HEAD },
      appId: APP,
      expected: [{ kind: 'decideHead', sha: HEAD }],
    },
    {
      name: 'the order check, by its name',
      facts: { name: ORDER_CHECK_NAME, appId: APP, headSha: HEAD },
      appId: APP,
      expected: [
        {
          kind: 'none',
          reason: 'the order check is the coordinator’s own: no merge waits on its result',
        },
      ],
    },
    {
      name: 'the order check by its name when the App id is unknown',
      facts: { name: ORDER_CHECK_NAME, appId: APP, headSha: HEAD },
      expected: [
        {
          kind: 'none',
          reason: 'the order check is the coordinator’s own: no merge waits on its result',
        },
      ],
    },
    {
      name: 'this App’s check suite',
      facts: { appId: APP, headSha: HEAD },
      appId: APP,
      expected: [{ kind: 'none', reason: 'a check result of this App: no merge waits on it' }],
    },
    {
      name: 'with the App id unknown, an App’s suite is not taken for its own',
      facts: { appId: APP, headSha: HEAD },
      expected: [{ kind: 'decideHead', sha: HEAD }],
    },
    {
      name: 'a payload naming no head',
      facts: { name: 'ci/test', appId: 15368 },
      appId: APP,
      expected: [{ kind: 'none', reason: 'the payload names no head' }],
    },
  ])('$name', ({ facts, appId, expected }) => {
    expect(decideCheckResult(facts, appId)).toEqual(expected);
  });

  it('reads the facts defensively from any JSON', () => {
    expect(
      checkResultFactsOf('check_run', {
        check_run: { name: 'ci/test', head_sha: HEAD, app: { id: 7 } },
      }),
    ).toEqual({ name: 'ci/test', appId: 7, headSha: HEAD });
    expect(
      checkResultFactsOf('check_suite', { check_suite: { head_sha: HEAD, app: null } }),
    ).toEqual({ headSha: HEAD });
    expect(checkResultFactsOf('check_run', { check_run: 'nonsense' })).toEqual({});
    expect(checkResultFactsOf('check_suite', {})).toEqual({});
  });
});
