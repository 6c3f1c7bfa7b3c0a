import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { historyAttempts, isPartial, readSection } from '../../src/protocol/pull-sections.js';
import type { WorkerClock } from '../../src/worker/clock.js';
import { errorLine } from './error-line.js';
import { git } from './helpers/git-fixture.js';
import { API, pullFixture, REPO, strictGitHub } from './helpers/github-mock.js';
import { createHarness, type Harness } from './helpers/harness.js';

const BRANCH = 'agent/7/task_001';
const HEAD_QUERY = { head: `acme:${BRANCH}`, state: 'open', per_page: '100' };
const T0 = Date.parse('2026-12-01T12:00:00Z');

strictGitHub();

let h: Harness;
beforeEach(() => {
  h = createHarness(BRANCH);
});
afterEach(() => h.fx.cleanup());

/**
 * A clock standing still at T0 whose one timer — the agent's stop — the test fires itself,
 * when the agent says it has done its work: no waiting on real time.
 */
function deadlineClock() {
  const state: { requestedMs?: number; stop?: () => void } = {};
  const clock: WorkerClock = {
    now: () => T0,
    after(ms, fn) {
      state.requestedMs = ms;
      state.stop = fn;
      return () => {
        state.stop = undefined;
      };
    },
  };
  const onOutput = (text: string) => {
    if (text.includes('FAKE_AGENT_READY')) state.stop?.();
  };
  return { clock, onOutput, state };
}

describe('the time limit', () => {
  it('stops the agent a grace margin before the deadline, pushes its work, marks the PR partial and ends timed_out', async () => {
    let created: { body: string } | undefined;
    nock(API)
      .post(`${REPO}/pulls`, (body: { body: string }) => {
        created = body;
        return true;
      })
      .reply(201, pullFixture(12, BRANCH, ''));
    const { clock, onOutput, state } = deadlineClock();

    // Dispatched ten minutes ago with a 30-minute timeout: the coordinator cancels at T0+20.
    const result = await h.run(
      {
        FAKE_AGENT: 'write_then_hang',
        timeout_minutes: '30',
        deadline_at: new Date(T0 + 20 * 60_000).toISOString(),
      },
      undefined,
      { clock, onOutput },
    );

    // The grace of a 30-minute limit is max(2 min, 10%) = 3 min: stop at T0+17.
    expect(state.requestedMs).toBe(17 * 60_000);
    expect(result.outcome).toMatchObject({
      ok: false,
      reason: 'timed_out',
      pullRequest: { number: 12, created: true },
    });
    expect(result.exitCode).toBe(1);
    expect(result.log.trimEnd().split('\n').at(-1)).toMatch(errorLine('timed_out'));

    const head = h.fx.originRev(BRANCH);
    expect(result.outcome.ok ? '' : result.outcome.commit).toBe(head);
    expect(git(h.fx.origin, 'show', `${BRANCH}:feature.txt`)).toBe('partial work of attempt 1');
    expect(git(h.fx.origin, 'log', '-1', '--format=%s', BRANCH)).toBe(
      '[partial] task_001: Add the feature file',
    );

    const body = created!.body;
    expect(isPartial(body)).toBe(true);
    expect(readSection(body, 'partial')).toBe(
      '**Partial work.** Attempt 1 reached its 30-minute time limit: what the agent had done is pushed, and the next attempt continues from it.',
    );
    expect(readSection(body, 'history')).toContain(
      '| 1 | work | timed out (partial) | — | — | [run](https://github.com/acme/widgets/actions/runs/987654321) | — |',
    );
  });

  it('starts no agent once the moment to stop it has passed: a re-run of an ended attempt spends nothing', async () => {
    // A person re-runs the failed jobs of an attempt that ended: GitHub re-runs the agent job
    // with the old assignment, whose deadline is long past; the publish job's is refused.
    const { clock } = deadlineClock();
    const result = await h.run(
      {
        FAKE_AGENT: 'write',
        timeout_minutes: '10',
        deadline_at: new Date(T0 - 60 * 60_000).toISOString(),
      },
      undefined,
      { clock },
    );
    expect(h.record()).toBeUndefined();
    expect(result.outcome).toMatchObject({ ok: false, reason: 'timeout' });
    expect(result.log).toContain('the agent is not started');
  });

  it('counts from its own start when the coordinator gives no deadline', async () => {
    const { clock, onOutput, state } = deadlineClock();
    const result = await h.run({ FAKE_AGENT: 'hang', timeout_minutes: '30' }, undefined, {
      clock,
      onOutput: (text) => {
        onOutput(text);
        // The hanging agent prints nothing: stop it once it has started.
        if (text.includes('::stop-commands::')) setImmediate(() => state.stop?.());
      },
    });
    expect(state.requestedMs).toBe(27 * 60_000);
    // Stopped with nothing to keep: no push, no PR, the plain timeout.
    expect(result.outcome).toMatchObject({ ok: false, reason: 'timeout' });
  });

  it('lets the next fix attempt finish the kept work on top of its commits and clears the partial mark', async () => {
    let partialBody = '';
    nock(API)
      .post(`${REPO}/pulls`, (body: { body: string }) => {
        partialBody = body.body;
        return true;
      })
      .reply(201, pullFixture(12, BRANCH, ''));
    const first = deadlineClock();
    await h.run({ FAKE_AGENT: 'write_then_hang', timeout_minutes: '30' }, undefined, first);
    const partialHead = h.fx.originRev(BRANCH);

    let patched = '';
    nock(API)
      .get(`${REPO}/pulls`)
      .query(HEAD_QUERY)
      .reply(200, () => [pullFixture(12, BRANCH, partialBody)]);
    nock(API)
      .patch(`${REPO}/pulls/12`, (body: { body: string }) => {
        patched = body.body;
        return true;
      })
      .reply(200, pullFixture(12, BRANCH, ''));
    // No feedback, base unchanged: only the partial work makes this attempt run the agent.
    const result = await h.run(
      { mode: 'fix', attempt: '2', FAKE_AGENT: 'write' },
      h.fx.freshWorkspace(BRANCH),
    );

    expect(result.outcome).toMatchObject({ ok: true, pullRequest: { number: 12 } });
    expect(h.record()!.stdin).toContain('## Unfinished work');
    const head = h.fx.originRev(BRANCH);
    expect(git(h.fx.origin, 'rev-parse', `${head}^`)).toBe(partialHead);
    expect(git(h.fx.origin, 'show', `${BRANCH}:feature.txt`)).toBe('attempt 2');
    expect(isPartial(patched)).toBe(false);
    expect(historyAttempts(readSection(patched, 'history'))).toEqual([1, 2]);
    expect(readSection(patched, 'summary')).toBe(
      '**What the agent did** (attempt 2):\n\n> Added feature.txt for attempt 2.',
    );
  });
});
