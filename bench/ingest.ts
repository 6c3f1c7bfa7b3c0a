// Benchmark 1: webhook ingest into the real server with real Postgres, against a do-nothing Probot app.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { sign } from '@octokit/webhooks-methods';
import { ask, forkTs, nextMessage, stopChild } from './lib/child.js';
import { CpuMeter } from './lib/cpu.js';
import { BENCH_WEBHOOK_SECRET, benchPrivateKey } from './lib/keys.js';
import { describeHandling, type HandlingByEvent } from './lib/metrics.js';
import { createBenchDatabase } from './lib/postgres.js';
import type { Report } from './lib/report.js';
import { mean, nowMs, percentile, rng } from './lib/stats.js';

const require = createRequire(import.meta.url);
interface ExampleGroup {
  name: string;
  examples: Array<Record<string, unknown> & { action?: string }>;
}
const examples = require('@octokit/webhooks-examples/api.github.com/index.json') as ExampleGroup[];

const INSTALLATION_ID = 2 ** 33 + 5;
const REPOSITORIES = 10;

export interface Delivery {
  event: string;
  body: string;
  signature: string;
}

function example(event: string, action: string, index: number): Record<string, unknown> {
  const all = examples.find((g) => g.name === event)?.examples.filter((e) => e.action === action);
  if (!all || all.length === 0) throw new Error(`no example payload for ${event}.${action}`);
  return structuredClone(all[index % all.length]!);
}

/**
 * The mix a busy installation sends that the coordinator has nothing to do for: comments that
 * are not commands (40%), labels other than the trigger on unrelated issues (30%), CI check
 * events on commits that are no agent PR's head (30%). Real payloads from @octokit/webhooks-examples.
 */
export async function buildMix(count: number): Promise<Delivery[]> {
  const random = rng(1);
  const out: Delivery[] = [];
  for (let i = 0; i < count; i++) {
    const r = random();
    const repoIndex = i % REPOSITORIES;
    let event: string;
    let payload: Record<string, unknown>;
    if (r < 0.4) {
      event = 'issue_comment';
      payload = example(event, 'created', i);
      const comment = payload.comment as Record<string, unknown>;
      comment.body = `Thanks! I had a look at this (${i}) and it works for me.`;
      comment.id = 9_000_000_000 + i;
      (payload.issue as Record<string, unknown>).number = 1 + (i % 500);
    } else if (r < 0.7) {
      event = 'issues';
      payload = example(event, 'labeled', i);
      payload.label = { ...(payload.label as object), name: i % 2 ? 'bug' : 'enhancement' };
      (payload.issue as Record<string, unknown>).number = 1 + (i % 500);
    } else if (r < 0.85) {
      event = 'check_run';
      payload = example(event, 'completed', i);
      const run = payload.check_run as Record<string, unknown>;
      run.head_sha = randomBytes(20).toString('hex');
      run.name = 'ci / test';
    } else {
      event = 'check_suite';
      payload = example(event, 'completed', i);
      (payload.check_suite as Record<string, unknown>).head_sha = randomBytes(20).toString('hex');
    }
    const repository = payload.repository as Record<string, unknown>;
    const owner = repository.owner as Record<string, unknown>;
    repository.id = 700_000_000 + repoIndex;
    repository.name = `service-${repoIndex}`;
    repository.full_name = `${String(owner.login)}/service-${repoIndex}`;
    payload.installation = {
      id: INSTALLATION_ID,
      node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNQ==',
    };
    const sender = payload.sender as Record<string, unknown>;
    sender.type = 'User';
    const body = JSON.stringify(payload);
    out.push({ event, body, signature: await sign(BENCH_WEBHOOK_SECRET, body) });
  }
  return out;
}

interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  statuses: Record<number, number>;
  latenciesMs: number[];
  elapsedMs: number;
}

class Loader {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 512 });
  private next = 0;
  private readonly prefix = randomBytes(4).toString('hex');

  constructor(
    private readonly port: number,
    private readonly mix: Delivery[],
  ) {}

  /** One delivery; resolves with its status (0 for a transport error). */
  private post(): Promise<number> {
    const n = this.next++;
    const delivery = this.mix[n % this.mix.length]!;
    return new Promise((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          method: 'POST',
          path: '/api/github/webhooks',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(delivery.body),
            'user-agent': 'GitHub-Hookshot/bench',
            'x-github-event': delivery.event,
            'x-github-delivery': `${this.prefix}-${n}`,
            'x-hub-signature-256': delivery.signature,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0));
      req.end(delivery.body);
    });
  }

  /**
   * Open loop at `rate` per second for `seconds`: each delivery has a scheduled send time, and
   * its latency counts from then (a server that falls behind is charged for the queue).
   */
  async fixedRate(rate: number, seconds: number): Promise<LoadResult> {
    const total = Math.round(rate * seconds);
    const result = emptyResult();
    const inflight: Array<Promise<void>> = [];
    const start = nowMs();
    let i = 0;
    while (i < total) {
      const now = nowMs();
      while (i < total && start + (i * 1000) / rate <= now) {
        const scheduled = start + (i * 1000) / rate;
        i++;
        result.sent++;
        inflight.push(
          this.post().then((status) => {
            record(result, status, nowMs() - scheduled);
          }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(inflight);
    result.elapsedMs = nowMs() - start;
    return result;
  }

  /** Closed loop: `concurrency` deliveries always in flight, for `seconds`. */
  async flatOut(concurrency: number, seconds: number): Promise<LoadResult> {
    const result = emptyResult();
    const start = nowMs();
    const deadline = start + seconds * 1000;
    const lane = async () => {
      while (nowMs() < deadline) {
        const sent = nowMs();
        result.sent++;
        record(result, await this.post(), nowMs() - sent);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
    result.elapsedMs = nowMs() - start;
    return result;
  }

  close(): void {
    this.agent.destroy();
  }
}

function emptyResult(): LoadResult {
  return { sent: 0, ok: 0, failed: 0, statuses: {}, latenciesMs: [], elapsedMs: 0 };
}

function record(result: LoadResult, status: number, latencyMs: number): void {
  result.statuses[status] = (result.statuses[status] ?? 0) + 1;
  if (status >= 200 && status < 300) result.ok++;
  else result.failed++;
  result.latenciesMs.push(latencyMs);
}

function describe(result: LoadResult): string {
  const statuses = Object.entries(result.statuses)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  return `${result.sent} sent in ${(result.elapsedMs / 1000).toFixed(1)} s, statuses ${statuses}, p50 ${percentile(result.latenciesMs, 50).toFixed(2)} ms, p99 ${percentile(result.latenciesMs, 99).toFixed(2)} ms, max ${Math.max(...result.latenciesMs).toFixed(1)} ms, mean ${mean(result.latenciesMs).toFixed(2)} ms`;
}

export interface IngestOptions {
  quick: boolean;
  nodeArgs?: string[];
}

export async function runIngest(report: Report, options: IngestOptions): Promise<void> {
  const seconds = options.quick ? 3 : 10;
  // The full run lets the inbox drain between phases; quick mode measures on top of the backlog.
  const drainBetween = !options.quick;
  const rate = 1000;
  const concurrency = 64;
  const mix = await buildMix(600);
  const stub = forkTs('github-stub.ts');
  const { port: stubPort } = await nextMessage<{ type: string; port: number }>(stub, 'ready');
  const privateKey = benchPrivateKey();
  report.note(
    `ingest: mix of 600 signed payloads (40% comments, 30% labels, 30% check events) over ${REPOSITORIES} repositories; ${seconds} s at ${rate}/s, then ${seconds} s flat out with ${concurrency} in flight`,
  );

  // Warm-up traffic (JIT, connection pools, token cache) is not measured.
  const measure = async (mode: 'ours' | 'probot', databaseUrl?: string) => {
    const child = forkTs('ingest-server.ts', {
      nodeArgs: options.nodeArgs,
      env: {
        BENCH_MODE: mode,
        BENCH_PRIVATE_KEY: privateKey,
        BENCH_DATABASE_URL: databaseUrl,
        BENCH_GHE_HOST: `127.0.0.1:${stubPort}`,
      },
    });
    try {
      const { port } = await nextMessage<{ type: string; port: number }>(child, 'ready');
      const loader = new Loader(port, mix);
      await loader.flatOut(16, 1);
      if (mode === 'ours') await drained(child, 60_000);
      const handledBefore = mode === 'ours' ? await handledCount(child) : 0;
      const phaseStart = nowMs();
      const fixed = await loader.fixedRate(rate, seconds);
      report.note(`${mode} at ${rate}/s: ${describe(fixed)}`);
      let backlog = 0;
      if (mode === 'ours') {
        backlog = await inboxBacklog(child);
        if (drainBetween) {
          const drainMs = await drained(child, 120_000);
          report.note(
            `ours: inbox backlog right after the ${rate}/s phase: ${backlog}; ${Number.isFinite(drainMs) ? `drained ${(drainMs / 1000).toFixed(1)} s later` : 'still not drained after 120 s'}`,
          );
        }
      }
      const meter = new CpuMeter(child.pid);
      const flat = await loader.flatOut(concurrency, seconds);
      const cpu = meter.elapsed();
      report.note(`${mode} flat out: ${describe(flat)}`);
      const per = (ms: number) => ((1000 * ms) / Math.max(1, flat.ok)).toFixed(0);
      report.note(
        `${mode} flat out CPU per delivery: server ${per(cpu.childMs)} µs, Postgres ${per(cpu.postgresMs)} µs, load generator ${per(cpu.selfMs)} µs (wall ${per(flat.elapsedMs)} µs on 2 CPUs)`,
      );
      let handledPerS = Number.NaN;
      if (mode === 'ours') {
        // Handling throughput while deliveries keep arriving (the inbox never ran dry).
        handledPerS =
          ((await handledCount(child)) - handledBefore) / ((nowMs() - phaseStart) / 1000);
        const stats = await ask<{
          type: string;
          byStatus: Record<string, number>;
          handling: HandlingByEvent;
        }>(child, { type: 'stats' }, 'stats');
        report.note(`ours: deliveries by status at the end: ${JSON.stringify(stats.byStatus)}`);
        report.note(`ours: mean handling time by event: ${describeHandling(stats.handling)}`);
      }
      let drainPerS = Number.NaN;
      if (mode === 'ours') {
        // Handling alone: traffic has stopped and the backlog drains.
        const before = await handledCount(child);
        const drainMeter = new CpuMeter(child.pid);
        const drainStart = nowMs();
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        const handled = (await handledCount(child)) - before;
        const drainCpu = drainMeter.elapsed();
        drainPerS = handled / ((nowMs() - drainStart) / 1000);
        const perHandled = (ms: number) => ((1000 * ms) / Math.max(1, handled)).toFixed(0);
        report.note(
          `ours: backlog drains at ${drainPerS.toFixed(0)}/s once traffic stops; CPU per handled delivery: server ${perHandled(drainCpu.childMs)} µs, Postgres ${perHandled(drainCpu.postgresMs)} µs`,
        );
      }
      loader.close();
      return { fixed, flat, backlog, handledPerS, drainPerS };
    } finally {
      await stopChild(child);
    }
  };

  const database = await createBenchDatabase();
  try {
    const probot = await measure('probot');
    const ours = await measure('ours', database.url);
    const oursPerS = ours.flat.ok / (ours.flat.elapsedMs / 1000);
    const probotPerS = probot.flat.ok / (probot.flat.elapsedMs / 1000);
    report.figure('ingest_per_s', oursPerS, 'deliveries/s');
    report.figure('ingest_p99_ms', percentile(ours.fixed.latenciesMs, 99), 'ms');
    report.figure('ingest_p50_ms', percentile(ours.fixed.latenciesMs, 50), 'ms');
    report.figure('ingest_ratio', oursPerS / probotPerS, 'x');
    report.figure('ingest_probot_per_s', probotPerS, 'deliveries/s');
    report.figure('ingest_probot_p99_ms', percentile(probot.fixed.latenciesMs, 99), 'ms');
    report.figure('ingest_handled_per_s', ours.handledPerS, 'deliveries/s');
    report.figure('ingest_backlog_at_1000', ours.backlog, 'deliveries');
    report.figure('ingest_drain_per_s', ours.drainPerS, 'deliveries/s');
    report.figure('ingest_errors', ours.fixed.failed + ours.flat.failed, 'responses');
    const { requests } = await ask<{ type: string; requests: number }>(
      stub,
      { type: 'stats' },
      'stats',
    );
    report.note(`GitHub stub answered ${requests} requests (config reads, tokens)`);
  } finally {
    await database.drop();
    await stopChild(stub);
  }
}

async function handledCount(child: Parameters<typeof ask>[0]): Promise<number> {
  const stats = await ask<{ type: string; byStatus: Record<string, number> }>(
    child,
    { type: 'stats' },
    'stats',
  );
  return stats.byStatus.done ?? 0;
}

async function inboxBacklog(child: Parameters<typeof ask>[0]): Promise<number> {
  const stats = await ask<{ type: string; byStatus: Record<string, number> }>(
    child,
    { type: 'stats' },
    'stats',
  );
  return (stats.byStatus.pending ?? 0) + (stats.byStatus.processing ?? 0);
}

/** Polls until the inbox is empty; returns how long that took, or Infinity after `timeoutMs`. */
async function drained(child: Parameters<typeof ask>[0], timeoutMs: number): Promise<number> {
  const start = nowMs();
  while (nowMs() - start < timeoutMs) {
    if ((await inboxBacklog(child)) === 0) return nowMs() - start;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Number.POSITIVE_INFINITY;
}
