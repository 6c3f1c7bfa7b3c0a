import { afterEach, describe, expect, it } from 'vitest';
import {
  CHAIN_OF_TWO,
  MAINTAINER,
  REPO,
  startRun,
  startScenario,
  type Scenario,
} from '../e2e/harness.js';
import {
  APP_BOT,
  comments,
  latestRun,
  mergedPulls,
  prOf,
  pulls,
  taskState,
} from './security-helpers.js';
import { answerText } from '../helpers/answer-text.js';

/** A read collaborator of the private repository: GitHub lets them open PRs from its branches. */
const READER = 'a-reader';
const WRITER = 'a-writer';
const USAGE_999 = '<!-- agent-coordinator:usage cost_usd=999 input_tokens=1 output_tokens=1 -->';

/**
 * docs/worker.md: a task's PR is the one the App opened (the publish job, with the App's
 * installation token). Anyone who can read a private repository (and, in an organization's
 * public one, its members) can open a PR from one of its task branches onto any base; such a PR is never the task's: it is not linked, merged, read for
 * usage, and closing it rejects nothing. Opened by someone without write access it is closed,
 * since it would keep the publish job from opening the task's own.
 */
describe('a PR on a task branch that the App did not open', () => {
  let s: Scenario;
  afterEach(async () => {
    s.double.assertNoViolations();
    await s.close();
  });

  /** Task a in review with the App's PR; a look-alike PR by `by` onto `base`. */
  async function lookAlike(by: string, options: { body?: string; base?: string } = {}) {
    s = await startScenario();
    await s.double.setPermission(REPO, WRITER, 'write');
    await s.double.setPermission(REPO, READER, 'read');
    s.double.setWorker(() => ({ kind: 'pr' }));
    await s.double.pushCommit(REPO, 'release', { message: 'release', by: MAINTAINER });
    const issue = await startRun(s, { body: CHAIN_OF_TWO });
    expect(await taskState(s, issue, 'a')).toBe('in_review');
    const real = prOf(s, issue, 'a')!;
    const evil = await s.double.openPr(REPO, {
      head: `agent/${issue}/a`,
      base: options.base ?? 'release',
      title: 'look-alike',
      body: options.body ?? 'x',
      by,
    });
    await s.settle();
    return { issue, real: real.number, evil };
  }

  const taskA = async (issue: number) => {
    const run = await latestRun(s, issue);
    return s.app.store.runs.task(run!.id, 'a');
  };
  const stateOf = (pr: number) => pulls(s).find((p) => p.number === pr)?.state;
  const replies = (pr: number) =>
    comments(s, pr).filter((c) => c.user.login === APP_BOT && c.body.startsWith('@'));

  it('by a reader: closed, its author told; the App PR merges', async () => {
    const { issue, real, evil } = await lookAlike(READER);
    expect(stateOf(evil)).toBe('closed');
    expect(replies(evil).map((c) => answerText(c.body))).toEqual([
      "@a-reader pull requests from agent-coordinator task branches are the App's: only people with write access may open one (your role: read), so this one was closed.",
    ]);
    expect((await taskA(issue))?.prNumber).toBe(real);
    await s.double.comment(REPO, real, '/approve', MAINTAINER);
    await s.settle();
    expect(mergedPulls(s)).toEqual([real]);
    expect(await taskState(s, issue, 'a')).toBe('merged');
  });

  it('by a writer: left open, never linked or merged, and closing it rejects nothing', async () => {
    const { issue, real, evil } = await lookAlike(WRITER);
    expect(stateOf(evil)).toBe('open');
    expect(replies(evil)).toEqual([]);
    expect((await taskA(issue))?.prNumber).toBe(real);
    await s.double.comment(REPO, real, '/approve', MAINTAINER);
    await s.settle();
    expect(mergedPulls(s)).toEqual([real]);
    expect(stateOf(evil)).toBe('open');

    await s.double.closePr(REPO, evil, WRITER);
    await s.settle();
    expect(await taskState(s, issue, 'a')).toBe('merged');
    expect(await taskState(s, issue, 'b')).not.toBe('blocked');
  });

  it('its body is never read as the task’s usage', async () => {
    const { issue, real } = await lookAlike(WRITER, { body: `hi\n${USAGE_999}` });
    await s.double.comment(REPO, real, '/retry please', MAINTAINER);
    await s.settle();
    const run = await latestRun(s, issue);
    expect(run?.holdReason ?? null).toBeNull();
    expect(await s.app.store.attempts.spentByRun(run!.id)).toBeLessThan(999);
    expect((await taskA(issue))?.prNumber).toBe(real);
  });

  it('squatting on the task’s base does not keep the next attempt from opening the App PR', async () => {
    const { issue, real } = await lookAlike(READER, { base: 'release' });
    // The App's PR closed by a maintainer: the task is rejected; a reader opens the branch's
    // PR onto the base before the task is retried (GitHub allows one open PR per head and base).
    await s.double.closePr(REPO, real, MAINTAINER);
    await s.settle();
    const squat = await s.double.openPr(REPO, {
      head: `agent/${issue}/a`,
      base: 'main',
      title: 'squat',
      body: 'x',
      by: READER,
    });
    await s.settle();
    expect(stateOf(squat)).toBe('closed');
    await s.double.comment(REPO, issue, '/retry a', MAINTAINER);
    await s.settle();
    const retried = await taskA(issue);
    expect(retried?.state).toBe('in_review');
    expect(retried?.prNumber).not.toBe(real);
    expect(stateOf(retried!.prNumber!)).toBe('open');
  });
});
