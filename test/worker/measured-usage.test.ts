import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API, pullFixture, REPO, strictGitHub } from './helpers/github-mock.js';
import { createHarness, type Harness } from './helpers/harness.js';
import { apiCallingAgent, SONNET_ANSWER } from './helpers/sonnet-answer.js';

/**
 * `budget.maxCostUsdPerRun` adds up the usage markers of the task's PRs (docs/worker.md, "What
 * the agent spent"). An agent talked into understating its spend prints a result that says it
 * spent nothing; the worker's API-key proxy saw each answer of the API the agent called, and
 * the attempt's usage, in the handoff and the PR's marker, is what it measured.
 */

const BRANCH = 'agent/7/task_001';
const REAL_KEY = 'sk-ant-api03-held-by-the-worker';

strictGitHub();

/** An agent that calls the API through the proxy `CALLS` times, then says it spent nothing. */
const AGENT = apiCallingAgent(String.raw`
  const { writeFileSync } = require('node:fs');
  if (process.env.CHANGE !== 'none') writeFileSync('feature.txt', 'done\n');
  if (process.env.FIFO) require('node:child_process').execFileSync('mkfifo', ['left-behind']);
  console.log(JSON.stringify({
    type: 'result', subtype: 'success', is_error: false, result: 'Done.',
    total_cost_usd: 0, usage: { input_tokens: 0, output_tokens: 0 },
  }));
`);

let h: Harness;
let api: Server;
let apiUrl: string;
let calls: number;
beforeEach(async () => {
  h = createHarness(BRANCH);
  calls = 0;
  api = createServer((req, res) => {
    calls++;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(SONNET_ANSWER);
  }).listen(0, '127.0.0.1');
  await once(api, 'listening');
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});
afterEach(() => {
  api.close();
  h.fx.cleanup();
});

async function runAgentCalling(n: number) {
  const agent = join(h.shared, 'understating-agent.cjs');
  writeFileSync(agent, AGENT);
  let body = '';
  nock(API)
    .post(`${REPO}/pulls`, (pull: { body: string }) => {
      body = pull.body;
      return true;
    })
    .reply(201, pullFixture(12, BRANCH, ''));
  const result = await h.run({
    AGENT_COMMAND: `"${process.execPath}" "${agent}"`,
    ANTHROPIC_API_KEY: REAL_KEY,
    ANTHROPIC_BASE_URL: apiUrl,
    CALLS: String(n),
  });
  expect(result.outcome).toMatchObject({ ok: true });
  return { log: result.log, marker: /<!-- agent-coordinator:usage[^>]*-->/.exec(body)?.[0] };
}

describe('the usage of an agent that understates its spend', () => {
  it('is what the proxy measured of its calls, in the log and the PR marker', async () => {
    const { log, marker } = await runAgentCalling(2);
    expect(calls).toBe(2);
    // Sonnet 5 at $2 input, $0.20 cache reads, $10 output per million tokens, twice.
    const cost = (2 * (2000 * 2 + 50_000 * 0.2 + 800 * 10)) / 1e6;
    expect(marker).toBe(
      `<!-- agent-coordinator:usage cost_usd=${cost} input_tokens=104000 output_tokens=1600 -->`,
    );
    expect(log).toContain(
      `agent usage: cost_usd=${cost} input_tokens=104000 output_tokens=1600 (measured by the worker's API proxy)`,
    );
  });

  it("is the agent's own report when it made no call through the proxy", async () => {
    const { log, marker } = await runAgentCalling(0);
    expect(calls).toBe(0);
    expect(marker).toBe(
      '<!-- agent-coordinator:usage cost_usd=0 input_tokens=0 output_tokens=0 -->',
    );
    expect(log).toContain(
      'agent usage: cost_usd=0 input_tokens=0 output_tokens=0 (as the agent reported it)',
    );
  });
});

/** The notice the agent job prints of what the agent spent (usage-annotation.ts). */
const usageNotice = (log: string) => log.match(/^::notice::agent-coordinator-usage: .*$/gm) ?? [];

describe('the usage the agent job says', () => {
  it('is said once the agent has ended, before the worker reads what it left', async () => {
    const agent = join(h.shared, 'understating-agent.cjs');
    writeFileSync(agent, AGENT);
    const result = await h.run({
      AGENT_COMMAND: `"${process.execPath}" "${agent}"`,
      ANTHROPIC_API_KEY: REAL_KEY,
      ANTHROPIC_BASE_URL: apiUrl,
      CALLS: '1',
      CHANGE: 'none',
      FIFO: '1',
    });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'no_changes' });
    const cost = (2000 * 2 + 50_000 * 0.2 + 800 * 10) / 1e6;
    const said = `::notice::agent-coordinator-usage: cost_usd=${cost} input_tokens=52000 output_tokens=800`;
    expect(usageNotice(result.log)).toEqual([said]);
    // A job that dies reading the tree (a FIFO, a change too large for a string) has said it.
    const read = result.log.indexOf('removed what git cannot record (FIFOs, sockets): left-behind');
    expect(read).toBeGreaterThan(0);
    expect(result.log.indexOf(said)).toBeLessThan(read);
    // The failure stays the log's last line.
    expect(result.log.trimEnd().split('\n').at(-1)).toMatch(
      /^::error::agent-coordinator: no_changes/,
    );
  });

  it('is said by an attempt that publishes too, once, as the PR marker records it', async () => {
    const { log, marker } = await runAgentCalling(1);
    const cost = (2000 * 2 + 50_000 * 0.2 + 800 * 10) / 1e6;
    expect(marker).toBe(
      `<!-- agent-coordinator:usage cost_usd=${cost} input_tokens=52000 output_tokens=800 -->`,
    );
    expect(usageNotice(log)).toEqual([
      `::notice::agent-coordinator-usage: cost_usd=${cost} input_tokens=52000 output_tokens=800`,
    ]);
  });
});
