// Benchmark 5: what Octokit itself costs per GitHub call, in the Octokit the server runs
// (CoordinatorOctokit: Probot's retry and throttling plugins) and with both plugins off (the
// fleet's TestOctokit), against a local stub answering a real PR's JSON at once. Sequential
// calls, as a handler makes them; the stub shares the process, and its share is the same for both.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Probot, type ProbotOctokit } from 'probot';
import { CoordinatorOctokit } from '../src/github/coordinator-octokit.js';
import { TestOctokit } from '../test/helpers/app.js';
import { examplePayload } from '../test/helpers/payloads.js';
import { BENCH_APP_ID, benchPrivateKey } from './lib/keys.js';
import type { Report } from './lib/report.js';
import { nowMs, percentile } from './lib/stats.js';

export async function runOctokit(report: Report, options: { quick: boolean }): Promise<void> {
  const pull = JSON.stringify(
    examplePayload<{ pull_request: object }>('pull_request', 'opened').pull_request,
  );
  const token = () =>
    JSON.stringify({
      token: 'ghs_bench',
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
  const server = createServer((req, res) => {
    req.resume();
    const isToken = req.url?.endsWith('/access_tokens') ?? false;
    res.writeHead(isToken ? 201 : 200, { 'content-type': 'application/json' });
    res.end(isToken ? token() : pull);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const calls = options.quick ? 500 : 2000;
  try {
    const measured: Record<string, { p50: number; cpuUs: number }> = {};
    for (const [name, Octokit] of [
      ['production', CoordinatorOctokit],
      ['plain', TestOctokit],
    ] as const) {
      const octokit = await installationOctokit(Octokit, baseUrl);
      const get = () => octokit.rest.pulls.get({ owner: 'o', repo: 'r', pull_number: 1 });
      for (let i = 0; i < 100; i++) await get(); // warm-up, and the installation token
      const ms: number[] = [];
      const cpu = process.cpuUsage();
      for (let i = 0; i < calls; i++) {
        const start = nowMs();
        await get();
        ms.push(nowMs() - start);
      }
      const used = process.cpuUsage(cpu);
      measured[name] = { p50: percentile(ms, 50), cpuUs: (used.user + used.system) / calls };
    }
    const { production, plain } = measured as Record<
      'production' | 'plain',
      { p50: number; cpuUs: number }
    >;
    report.note(
      `${calls} sequential GET /repos/{owner}/{repo}/pulls/{n} (${pull.length} bytes): production p50 ${production.p50.toFixed(2)} ms, ${production.cpuUs.toFixed(0)} µs CPU; plugins off p50 ${plain.p50.toFixed(2)} ms, ${plain.cpuUs.toFixed(0)} µs CPU (stub included in both)`,
    );
    report.figure('octokit_get_p50_ms', production.p50, 'ms');
    report.figure('octokit_plugins_ms_per_call', production.p50 - plain.p50, 'ms');
    report.figure('octokit_plugins_cpu_us_per_call', production.cpuUs - plain.cpuUs, 'µs');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function installationOctokit(Octokit: typeof ProbotOctokit, baseUrl: string) {
  const probot = new Probot({
    appId: BENCH_APP_ID,
    privateKey: benchPrivateKey(),
    log: pino({ level: 'silent' }),
    Octokit,
    baseUrl,
  });
  return probot.auth(77);
}
