import { EventEmitter, once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CANCEL_KILL_AFTER_MS, CANCEL_SAY_BY_MS } from '../../src/worker/cancellation.js';
import { systemClock, type WorkerClock } from '../../src/worker/clock.js';
import { WorkflowCommands } from '../github-double/worker/workflow-commands.js';
import { createHarness, type Harness } from './helpers/harness.js';
import { SONNET_ANSWER, SONNET_ANSWER_COST } from './helpers/sonnet-answer.js';

/**
 * A run cancelled while its agent runs (docs/worker.md, "A cancelled run"): the runner sends the
 * agent job's node process SIGINT, SIGTERM 7.5 seconds later, and kills it 2.5 seconds after
 * that. The worker stops the agent's processes and says what the key proxy measured, with
 * workflow commands on, so that the runner makes it an annotation the coordinator charges.
 */

const REAL_KEY = 'sk-ant-api03-held-by-the-worker';

/**
 * Calls the API through the proxy `CALLS` times, then, with `HELD`, once more on an answer the
 * API holds after its first event; then says it waits, and never ends: it ignores SIGTERM, and a
 * child of its own left its process group.
 */
const AGENT = String.raw`
const http = require('node:http');
const { spawn } = require('node:child_process');
process.on('SIGTERM', () => {});
const base = new URL(process.env.ANTHROPIC_BASE_URL);
const call = (whole) => new Promise((resolve, reject) => {
  const headers = { 'x-api-key': process.env.ANTHROPIC_API_KEY, 'content-type': 'application/json' };
  http.request({ host: base.hostname, port: base.port, method: 'POST', path: '/v1/messages', headers }, (res) => {
    res.once('data', () => { if (!whole) resolve(); });
    res.resume();
    res.on('end', resolve);
  }).on('error', reject).end(JSON.stringify({ model: 'claude-sonnet-5', stream: true }));
});
(async () => {
  for (let i = 0; i < Number(process.env.CALLS); i++) await call(true);
  if (process.env.HELD) await call(false);
  spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'], {
    detached: true, stdio: 'ignore',
  }).unref();
  console.log('AGENT_WAITING');
  setInterval(() => {}, 1000);
})();
`;

/** The first event of SONNET_ANSWER (message_start), which the held answer stops after. */
const FIRST_EVENT = SONNET_ANSWER.slice(0, SONNET_ANSWER.indexOf('\n\n') + 2);
/** What the first event shows: 2,000 input tokens, 50,000 read from the cache, 1 out. */
const FIRST_EVENT_COST = (2000 * 2 + 50_000 * 0.2 + 1 * 10) / 1e6;

/** The system's clock, with the cancellation's own timers at once or, `cutoff: 'never'`, never. */
function cancelClock(cutoff: 'at once' | 'never' = 'at once'): WorkerClock {
  return {
    now: () => systemClock.now(),
    after(ms, fn) {
      if (ms === CANCEL_SAY_BY_MS && cutoff === 'never') return () => {};
      if (ms !== CANCEL_KILL_AFTER_MS && ms !== CANCEL_SAY_BY_MS) return systemClock.after(ms, fn);
      const timer = setImmediate(fn);
      return () => clearImmediate(timer);
    },
  };
}

/** The usage annotations the runner makes of the log, as it reads workflow commands. */
function usageAnnotations(log: string): string[] {
  const commands = new WorkflowCommands();
  commands.startStep();
  commands.feed(log);
  commands.flush();
  return commands.annotations
    .map((a) => a.message)
    .filter((m) => m.startsWith('agent-coordinator-usage:'));
}

const said = (cost: number, input: number, output: number) =>
  `agent-coordinator-usage: cost_usd=${Math.round(cost * 1e6) / 1e6} input_tokens=${input} output_tokens=${output}`;

let h: Harness;
let api: Server;
let apiUrl: string;
/** The API's answers so far, and which of them (1 is the first) it holds after its first event. */
let requests: number;
let holdCall: number | undefined;
/** The answer the API holds, until the test ends it. */
let held: ServerResponse | undefined;
beforeEach(async () => {
  h = createHarness();
  requests = 0;
  holdCall = undefined;
  held = undefined;
  api = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (++requests !== holdCall) return void res.end(SONNET_ANSWER);
    held = res;
    res.write(FIRST_EVENT);
  }).listen(0, '127.0.0.1');
  await once(api, 'listening');
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});
afterEach(() => {
  held?.destroy();
  api.closeAllConnections();
  api.close();
  h.fx.cleanup();
});

async function runCancelled(
  options: { calls: number; held: boolean; clock: WorkerClock },
  onOutput: (text: string, signals: EventEmitter) => void,
) {
  const agent = join(h.shared, 'cancelled-agent.cjs');
  writeFileSync(agent, AGENT);
  const signals = new EventEmitter();
  holdCall = options.held ? options.calls + 1 : undefined;
  return h.run(
    {
      AGENT_COMMAND: `"${process.execPath}" "${agent}"`,
      ANTHROPIC_API_KEY: REAL_KEY,
      ANTHROPIC_BASE_URL: apiUrl,
      CALLS: String(options.calls),
      HELD: options.held ? '1' : '',
      timeout_minutes: '30',
    },
    undefined,
    { clock: options.clock, signals, onOutput: (text) => onOutput(text, signals) },
  );
}

describe('a run cancelled while the agent runs', () => {
  it("stops an agent that ignores SIGTERM at the runner's SIGINT, and says what the proxy measured", async () => {
    const result = await runCancelled(
      { calls: 2, held: false, clock: cancelClock() },
      (text, s) => {
        if (text.includes('AGENT_WAITING')) s.emit('SIGINT');
      },
    );
    expect(result.outcome).toMatchObject({ ok: false, reason: 'run_cancelled' });
    expect(result.log).toContain('the run is being cancelled: stopping the agent');
    // Said with workflow commands on again: the runner makes it the job's annotation.
    expect(usageAnnotations(result.log)).toEqual([said(2 * SONNET_ANSWER_COST, 104_000, 1600)]);
    expect(result.log.trimEnd().split('\n').at(-1)).toMatch(
      /^::error::agent-coordinator: run_cancelled/,
    );
  });

  it('counts an answer still streaming as far as it came, cut at the moment to say it', async () => {
    const result = await runCancelled({ calls: 1, held: true, clock: cancelClock() }, (text, s) => {
      if (text.includes('AGENT_WAITING')) s.emit('SIGINT');
    });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'run_cancelled' });
    expect(usageAnnotations(result.log)).toEqual([
      said(SONNET_ANSWER_COST + FIRST_EVENT_COST, 104_000, 801),
    ]);
  });

  it("says what was measured so far at the runner's SIGTERM, when it has not been said yet", async () => {
    const result = await runCancelled(
      { calls: 1, held: true, clock: cancelClock('never') },
      (text, s) => {
        if (text.includes('AGENT_WAITING')) {
          s.emit('SIGINT');
          // The answer still streams, and nothing cuts it: the runner's SIGTERM comes first.
          s.emit('SIGTERM');
        }
        // Said: the API ends its answer, which the proxy still reads, and the worker goes on.
        if (text.includes('agent-coordinator-usage'))
          held?.end(SONNET_ANSWER.slice(FIRST_EVENT.length));
      },
    );
    expect(result.outcome).toMatchObject({ ok: false, reason: 'run_cancelled' });
    expect(result.log).toContain('the runner is about to kill the job');
    // What was measured at the SIGTERM, then the whole of it once the answer ended.
    expect(usageAnnotations(result.log)).toEqual([
      said(SONNET_ANSWER_COST + FIRST_EVENT_COST, 104_000, 801),
      said(2 * SONNET_ANSWER_COST, 104_000, 1600),
    ]);
  });
});
