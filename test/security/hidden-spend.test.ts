import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAINTAINER, REPO, repositoryIdOf } from '../e2e/harness.js';
import { startRealWorkerScenario, type RealWorkerScenario } from '../e2e/real-worker.js';
import { SONNET_ANSWER, SONNET_ANSWER_COST } from '../worker/helpers/sonnet-answer.js';

/**
 * An agent steered into spending while keeping the spend from the run's budget
 * (`budget.maxCostUsdPerRun`, docs/worker.md "What the agent spent"): it calls the API through
 * the worker's key proxy, says it spent nothing, and then tries to keep what the worker measured
 * from reaching the coordinator. The committed bundle in the real workflow's three jobs, on the
 * GitHub double's runner, which reads workflow commands as GitHub's does.
 */

/**
 * Calls the API once through the proxy, then does what `TRICK` says, and prints a result that
 * says it spent nothing.
 */
const HIDING_AGENT = String.raw`
const http = require('node:http');
const { execFileSync } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const base = new URL(process.env.ANTHROPIC_BASE_URL);
const call = () => new Promise((resolve, reject) => {
  const headers = { 'x-api-key': process.env.ANTHROPIC_API_KEY, 'content-type': 'application/json' };
  http.request({ host: base.hostname, port: base.port, method: 'POST', path: '/v1/messages', headers }, (res) => {
    res.resume();
    res.on('end', resolve);
  }).on('error', reject).end(JSON.stringify({ model: 'claude-sonnet-5', stream: true }));
});
(async () => {
  await call();
  const result = { type: 'result', subtype: 'success', is_error: false, result: 'Done.',
    total_cost_usd: 0, usage: { input_tokens: 0, output_tokens: 0 } };
  switch (process.env.TRICK) {
    case 'mask-by-file-name':
      // The worker logs the FIFOs it removes; the runner reads '##[…]' anywhere in a line.
      execFileSync('mkfifo', ['##[add-mask]agent-coordinator-usage']);
      break;
    case 'report-huge':
      // More than it spent, which counts over the measure: but past 1e21 a number prints as 1e+21.
      result.usage.input_tokens = 1e21;
      break;
  }
  console.log(JSON.stringify(result));
  // Its last words, on the stream the runner may read after the worker's next line.
  if (process.env.TRICK === 'mask-on-stderr')
    process.stderr.write('::add-mask::agent-coordinator-usage\n');
})();
`;

let api: Server;
let apiUrl: string;
beforeEach(async () => {
  api = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(SONNET_ANSWER);
  }).listen(0, '127.0.0.1');
  await once(api, 'listening');
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});

describe('an agent that hides what it spent', () => {
  let scenario: RealWorkerScenario | undefined;
  afterEach(async () => {
    await scenario?.close();
    scenario = undefined;
    api.close();
  });

  /** One task, one attempt (no retry): what the run was charged for it. */
  async function spentWith(trick: string): Promise<number> {
    scenario = await startRealWorkerScenario(HIDING_AGENT, {
      env: { ANTHROPIC_BASE_URL: apiUrl, TRICK: trick },
      config: 'retries:\n  max: 0\n',
    });
    const { s } = scenario;
    const issue = await s.double.openIssue(REPO, {
      title: 'Spend',
      body: ['```tasks', '- id: a', '  title: A', '```'].join('\n'),
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
    return s.app.store.attempts.spentByRun(run!.id);
  }

  it('is charged, though a file name it chose asks the runner to mask the usage annotation', async () => {
    expect(await spentWith('mask-by-file-name')).toBeCloseTo(SONNET_ANSWER_COST, 6);
  }, 180_000);

  it('is charged, though its last line on stderr asks the runner to mask the usage annotation', async () => {
    expect(await spentWith('mask-on-stderr')).toBeCloseTo(SONNET_ANSWER_COST, 6);
  }, 180_000);

  it('is charged, though it reports a figure too large to print as digits', async () => {
    expect(await spentWith('report-huge')).toBeCloseTo(SONNET_ANSWER_COST, 6);
  }, 180_000);
});
