import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAINTAINER, REPO, repositoryIdOf } from '../e2e/harness.js';
import { startRealWorkerScenario, type RealWorkerScenario } from '../e2e/real-worker.js';
import {
  apiCallingAgent,
  SONNET_ANSWER,
  SONNET_ANSWER_COST,
} from '../worker/helpers/sonnet-answer.js';

/**
 * An attempt cancelled while its agent runs is charged what the agent spent (docs/worker.md, "A
 * cancelled run"): the runner's SIGINT reaches the agent job's node process, which stops the
 * agent and says what the key proxy measured before the runner kills it; the coordinator reads
 * that when the cancelled run ends. The committed bundle in the real workflow's three jobs, the
 * runner double stopping the step as GitHub's runner does.
 */

/** Calls the API `CALLS` times through the proxy, then works on forever, deaf to SIGTERM. */
const SPEND_THEN_HANG = apiCallingAgent(
  '  setInterval(() => {}, 1000);',
  "process.on('SIGTERM', () => {});",
);

const CALLS = 2;

describe('an attempt cancelled while its agent runs', () => {
  let api: Server;
  let apiUrl: string;
  /** Resolves once the API has answered the agent's CALLS requests. */
  let spent: Promise<void>;
  let scenario: RealWorkerScenario | undefined;
  beforeEach(async () => {
    let answered = 0;
    let allAnswered!: () => void;
    spent = new Promise((resolve) => (allAnswered = resolve));
    api = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(SONNET_ANSWER, () => {
        if (++answered === CALLS) allAnswered();
      });
    }).listen(0, '127.0.0.1');
    await once(api, 'listening');
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await scenario?.close();
    scenario = undefined;
    api.close();
  });

  it('is charged what its agent spent when /cancel stops it, and the budget holds the run', async () => {
    const spendOfAttempt = CALLS * SONNET_ANSWER_COST;
    scenario = await startRealWorkerScenario(SPEND_THEN_HANG, {
      env: { ANTHROPIC_BASE_URL: apiUrl, CALLS: String(CALLS) },
      config: `budget:\n  maxCostUsdPerRun: ${spendOfAttempt / 2}\n`,
    });
    const { s, runs } = scenario;
    const issue = await s.double.openIssue(REPO, {
      title: 'Spend, then be cancelled',
      body: ['```tasks', '- id: a', '  title: A', '```'].join('\n'),
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    // The agent has spent and works on: a maintainer cancels the run.
    await spent;
    await s.double.comment(REPO, issue, '/cancel', MAINTAINER);
    await s.settle();

    // The agent job was cancelled in its step; the publish job never started.
    expect(runs.map((r) => r.jobs.map((j) => `${j.job}:${j.conclusion}`))).toEqual([
      ['assignment:success', 'agent:cancelled'],
    ]);
    expect(s.double.runs(REPO).map((r) => r.conclusion)).toEqual(['cancelled']);
    const run = (await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue))!;
    expect(run.state).toBe('cancelled');
    const [attempt] = await s.app.store.attempts.ofRun(run.id);
    expect(attempt).toMatchObject({ conclusion: 'cancelled', inputTokens: 104_000 });
    expect(attempt?.costUsd).toBeCloseTo(spendOfAttempt, 6);

    // A retry reopens the run, which has spent past its budget: it is held, and nothing goes out.
    await s.double.comment(REPO, issue, '/retry a', MAINTAINER);
    await s.settle();
    expect((await s.app.store.runs.getRun(run.id))?.state).toBe('held');
    expect(s.double.runs(REPO)).toHaveLength(1);
    const note = (s.double.comments(REPO, issue) as Array<{ body: string }>).find((c) =>
      c.body.startsWith('**agent-coordinator**: budget reached'),
    );
    expect(note?.body).toContain(`$${spendOfAttempt.toFixed(2)} of $`);
  }, 180_000);
});
