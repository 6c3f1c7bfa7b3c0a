import { afterEach, describe, expect, it } from 'vitest';
import { MAINTAINER, REPO, repositoryIdOf } from '../e2e/harness.js';
import { startRealWorkerScenario, type RealWorkerScenario } from '../e2e/real-worker.js';
import { apiCallingAgent, SONNET_ANSWER_COST } from '../worker/helpers/sonnet-answer.js';
import { useSonnetApi } from './sonnet-api.js';
import { taskState } from './security-helpers.js';

/**
 * `budget.maxCostUsdPerRun` adds up what a run's attempts spent (docs/configuration.md). A PR's
 * usage marker records an attempt that publishes; an attempt steered into spending and then
 * leaving nothing to publish, and a planner, whose plan comment has no marker, are charged from
 * the `::notice::` their worker job prints as it ends (src/protocol/usage-annotation.ts). The
 * committed bundle in the real workflow's three jobs, with the API behind the worker's key proxy.
 */

/** Calls the API `CALLS` times through the proxy, says it spent nothing, and changes nothing. */
const SPENDING_AGENT = apiCallingAgent(String.raw`
  const prompt = require('node:fs').readFileSync(0, 'utf8');
  const fence = '\x60\x60\x60';
  const planning = prompt.startsWith('You are planning');
  const result = planning ? ['Plan:', '', fence + 'tasks', '- id: a', '  title: A', fence].join('\n') : 'Nothing to do.';
  console.log(JSON.stringify({
    type: 'result', subtype: 'success', is_error: false, result,
    total_cost_usd: 0, usage: { input_tokens: 0, output_tokens: 0 },
  }));
`);

const api = useSonnetApi();

describe('spend that no pull request records', () => {
  let scenario: RealWorkerScenario | undefined;
  afterEach(async () => {
    await scenario?.close();
    scenario = undefined;
  });

  it('charges attempts that spent and left no change, and holds the run at its budget before another', async () => {
    // Each attempt spends two answers; the budget holds one attempt's worth and a bit.
    const perAttempt = 2 * SONNET_ANSWER_COST;
    scenario = await startRealWorkerScenario(SPENDING_AGENT, {
      env: { ANTHROPIC_BASE_URL: api.url(), CALLS: '2' },
      config: `budget:\n  maxCostUsdPerRun: ${perAttempt * 1.5}\nretries:\n  max: 3\n  backoff: [0s]\n`,
    });
    const { s, runs } = scenario;
    const issue = await s.double.openIssue(REPO, {
      title: 'Spend',
      body: ['```tasks', '- id: a', '  title: A', '```'].join('\n'),
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();

    // Two attempts, each failed in its agent job with nothing to publish, each charged.
    expect(runs.map((r) => r.jobs.map((j) => `${j.job}:${j.conclusion}`))).toEqual([
      ['assignment:success', 'agent:failure', 'publish:skipped'],
      ['assignment:success', 'agent:failure', 'publish:skipped'],
    ]);
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
    expect(run?.state).toBe('held');
    expect(await s.app.store.attempts.spentByRun(run!.id)).toBeCloseTo(2 * perAttempt, 6);
    // The hold came before a third attempt: the task waits for /unhold.
    expect(await taskState(s, issue, 'a')).not.toBe('failed');
    const note = (s.double.comments(REPO, issue) as Array<{ body: string }>).find((c) =>
      c.body.startsWith('**agent-coordinator**: budget reached'),
    );
    expect(note?.body).toContain(`$${(2 * perAttempt).toFixed(2)} of $`);
  }, 180_000);

  it("charges the planner's spend to the run", async () => {
    scenario = await startRealWorkerScenario(SPENDING_AGENT, {
      env: { ANTHROPIC_BASE_URL: api.url(), CALLS: '1' },
    });
    const { s, runs } = scenario;
    const issue = await s.double.openIssue(REPO, {
      title: 'Plan this',
      body: 'Split the work.',
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();

    // The planner's run posted its plan; the task's attempt then found nothing to do.
    expect(runs[0]!.jobs.map((j) => `${j.job}:${j.conclusion}`)).toEqual([
      'assignment:success',
      'agent:success',
      'publish:success',
    ]);
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
    // Every run spent one answer: the planner's and each of the task's attempts.
    expect(await s.app.store.attempts.spentByRun(run!.id)).toBeCloseTo(
      runs.length * SONNET_ANSWER_COST,
      6,
    );
  }, 180_000);

  it("holds the run at the planner's spend before its plan dispatches anything", async () => {
    scenario = await startRealWorkerScenario(SPENDING_AGENT, {
      env: { ANTHROPIC_BASE_URL: api.url(), CALLS: '1' },
      config: `budget:\n  maxCostUsdPerRun: ${SONNET_ANSWER_COST / 2}\n`,
    });
    const { s, runs } = scenario;
    const issue = await s.double.openIssue(REPO, {
      title: 'Plan this',
      body: 'Split the work.',
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();

    // The planner's run alone: its plan was stored, and the run held before a task went out.
    expect(runs.map((r) => r.jobs.map((j) => `${j.job}:${j.conclusion}`))).toEqual([
      ['assignment:success', 'agent:success', 'publish:success'],
    ]);
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
    expect(run?.state).toBe('held');
    expect(await s.app.store.attempts.spentByRun(run!.id)).toBeCloseTo(SONNET_ANSWER_COST, 6);
    expect(await taskState(s, issue, 'a')).toBe('pending');
  }, 180_000);
});
