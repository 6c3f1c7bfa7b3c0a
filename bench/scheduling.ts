// Benchmark 2: scheduling at scale. Tasks in Postgres → ready set; one completion → next dispatches;
// an in-memory baseline (bench/in-memory-scheduler/, not the server's path) against the seed's
// scan-everything tick; the server's own path through Postgres; how each grows with the tasks.
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type pg from 'pg';
import { repositories, runs, taskEdges, tasks } from '../db/schema.js';
import { DEFAULT_CONFIG, type RepoConfig } from '../src/config/schema.js';
import { scheduleRepository } from '../src/engine/dispatch.js';
import { compareCandidates, type Candidate } from '../src/core/scheduler/index.js';
import type { TaskState } from '../src/core/states.js';
import type { AppDatabase } from '../src/store/database.js';
import { createStore, type Store } from '../src/store/index.js';
import { SchedulerIndex, type SchedulerTask } from './in-memory-scheduler/scheduler-index.js';
import { workload, type Shape } from './lib/graphs.js';
import { createBenchDatabase, openBenchDatabase } from './lib/postgres.js';
import { completeOldest, INSTALLATION_ID, serverApp, type Completion } from './server-path.js';
import type { Report } from './lib/report.js';
import { mean, nowMs, nowUs, percentile } from './lib/stats.js';

/** COORDINATOR_MAX_PARALLEL of the issue; concurrency.maxParallel is capped at 1,000 by the config schema. */
const GLOBAL_LIMIT = 2000;
const REPO_LIMIT = 1000;

interface Case {
  shape: Shape;
  size: number;
  repositoryId: number;
  tasks: number;
}

const label = (n: number) => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));

/**
 * Stores the workload with the rows RunStore.setPlan writes (runs in state running, tasks with
 * their unmet-dep counts, edges), in bulk: setup is not what this benchmark measures.
 */
export async function storeWorkload(
  store: Store,
  shape: Shape,
  size: number,
  repositoryId: number,
) {
  await store.repositories.ensureRepository(INSTALLATION_ID, {
    id: repositoryId,
    owner: 'bench',
    name: `sched-${shape}-${size}`,
    defaultBranch: 'main',
  });
  const config: RepoConfig = {
    ...DEFAULT_CONFIG,
    plan: { ...DEFAULT_CONFIG.plan, maxTasks: 5000 },
    concurrency: { maxParallel: REPO_LIMIT },
    merge: { ...DEFAULT_CONFIG.merge, requireApproval: false },
  };
  const db = store.handle.db;
  // What createRun records for the repository at a run's start.
  await db
    .update(repositories)
    .set({ maxParallel: config.concurrency.maxParallel })
    .where(eq(repositories.id, repositoryId));
  const issues = workload(shape, size);
  let count = 0;
  for (let from = 0; from < issues.length; from += 200) {
    const chunk = issues.slice(from, from + 200);
    const created = await db
      .insert(runs)
      .values(
        chunk.map(({ issue }) => ({
          repositoryId,
          issueNumber: issue,
          config,
          startedBy: 'bench',
          issueTitle: `Issue ${issue}`,
          issueBody: '',
          state: 'running' as const,
          planSource: 'issue',
          baseBranch: 'main',
        })),
      )
      .returning({ id: runs.id, issueNumber: runs.issueNumber });
    const runOf = new Map(created.map((r) => [r.issueNumber, r.id]));
    const taskRows = chunk.flatMap(({ issue, tasks: specs }) =>
      specs.map((t, planIndex) => ({ runId: runOf.get(issue)!, t, planIndex })),
    );
    const edgeRows = chunk.flatMap(({ issue, tasks: specs }) =>
      specs.flatMap((t) =>
        [...new Set(t.deps)].map((d) => ({ runId: runOf.get(issue)!, key: t.id, dep: d })),
      ),
    );
    // One array per column: drizzle's multi-row insert builder is slow for 100k rows.
    const client = (db as unknown as { $client: pg.Pool }).$client;
    await client.query(
      `insert into tasks (run_id, task_key, plan_index, title, type, priority, unmet_deps)
       select * from unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::int[])`,
      [
        taskRows.map((r) => r.runId),
        taskRows.map((r) => r.t.id),
        taskRows.map((r) => r.planIndex),
        taskRows.map((r) => r.t.title),
        taskRows.map((r) => r.t.type),
        taskRows.map((r) => r.t.priority),
        taskRows.map((r) => new Set(r.t.deps).size),
      ],
    );
    await client.query(
      `insert into task_edges (run_id, task_key, depends_on)
       select * from unnest($1::bigint[], $2::text[], $3::text[])`,
      [edgeRows.map((r) => r.runId), edgeRows.map((r) => r.key), edgeRows.map((r) => r.dep)],
    );
    count += taskRows.length;
  }
  return count;
}

interface Loaded {
  /** Time in the two queries (Postgres, the wire, pg and drizzle's row mapping). */
  queryMs: number;
  index: SchedulerIndex;
  ready: number;
  runs: Map<number, LoadedRun>;
}

interface LoadedRun {
  createdAt: number;
  tasks: SchedulerTask[];
  deps: Map<string, string[]>;
}

/** Database → ready set: every task and edge of the repository's active runs into a SchedulerIndex. */
async function coldLoad(db: AppDatabase, repositoryId: number): Promise<Loaded> {
  const active = and(eq(runs.repositoryId, repositoryId), isNull(runs.finishedAt));
  const queryStart = nowMs();
  const [taskRows, edgeRows] = await Promise.all([
    db
      .select({
        runId: tasks.runId,
        key: tasks.taskKey,
        state: tasks.state,
        priority: tasks.priority,
        planIndex: tasks.planIndex,
        createdAt: runs.createdAt,
      })
      .from(tasks)
      .innerJoin(runs, eq(runs.id, tasks.runId))
      .where(active)
      .orderBy(asc(tasks.runId), asc(tasks.planIndex)),
    db
      .select({ runId: taskEdges.runId, key: taskEdges.taskKey, dep: taskEdges.dependsOn })
      .from(taskEdges)
      .innerJoin(runs, eq(runs.id, taskEdges.runId))
      .where(active),
  ]);
  const queryMs = nowMs() - queryStart;
  const byRun = new Map<number, LoadedRun>();
  for (const row of taskRows) {
    let run = byRun.get(row.runId);
    if (!run)
      byRun.set(
        row.runId,
        (run = { createdAt: row.createdAt.getTime(), tasks: [], deps: new Map() }),
      );
    const deps: string[] = [];
    run.deps.set(row.key, deps);
    run.tasks.push({ id: row.key, deps, priority: row.priority, state: row.state as TaskState });
  }
  for (const edge of edgeRows) byRun.get(edge.runId)?.deps.get(edge.key)?.push(edge.dep);
  const index = new SchedulerIndex();
  let ready = 0;
  for (const [runId, run] of byRun) {
    // Same order as the server's claim: priority, then oldest run, then plan order.
    ready += index.addRun(String(runId), run.tasks, [], run.createdAt * 1e4).length;
  }
  return { queryMs, index, ready, runs: byRun };
}

/** The seed's data, built outside the timed cold load: deps resolved to references once. */
function seedTasks(loaded: Loaded): SeedTask[] {
  const seed: SeedTask[] = [];
  for (const [runId, run] of loaded.runs) {
    const orderBase = run.createdAt * 1e4;
    const refs = new Map<string, SeedTask>();
    run.tasks.forEach((t, i) => {
      const s: SeedTask = {
        runId: String(runId),
        taskId: t.id,
        priority: t.priority ?? 3,
        order: orderBase + i,
        state: 'pending',
        deps: [],
      };
      refs.set(t.id, s);
      seed.push(s);
    });
    for (const t of run.tasks) refs.get(t.id)!.deps = t.deps.map((d) => refs.get(d)!);
  }
  return seed;
}

interface SeedTask extends Candidate {
  state: 'pending' | 'dispatched' | 'merged';
  deps: SeedTask[];
}

/**
 * The seed's approach, written straightforwardly (and given its best data layout: deps are
 * object references resolved once, so the scan does no lookups): on every tick, scan every
 * task and its deps, collect the ready ones, sort, take what fits.
 */
function seedTick(all: readonly SeedTask[], headroom: number): SeedTask[] {
  const ready: SeedTask[] = [];
  for (const task of all) {
    if (task.state !== 'pending') continue;
    let met = true;
    for (const dep of task.deps) {
      if (dep.state !== 'merged') {
        met = false;
        break;
      }
    }
    if (met) ready.push(task);
  }
  ready.sort(compareCandidates);
  return ready.slice(0, headroom);
}

interface SimResult {
  decisions: number;
  oursUs: number[];
  seedUs: number[];
  mismatches: number;
  dispatched: number;
}

/**
 * Drives every task to merged: each completion (oldest dispatch first) is one decision —
 * markMerged + take(headroom) for ours. At `seedSamples` evenly spaced completions the seed's tick
 * runs on the same state and must pick the same tasks.
 */
function simulate(loaded: Loaded, total: number, seedSamples: number): SimResult {
  const { index } = loaded;
  const seed = seedTasks(loaded);
  const byKey = new Map(seed.map((s) => [`${s.runId}:${s.taskId}`, s]));
  const inflight: Candidate[] = [];
  let head = 0;
  const dispatch = (taken: Candidate[]) => {
    for (const c of taken) {
      byKey.get(`${c.runId}:${c.taskId}`)!.state = 'dispatched';
      inflight.push(c);
    }
  };
  dispatch(index.take(GLOBAL_LIMIT));
  const stride = Math.max(1, Math.floor(total / seedSamples));
  const result: SimResult = { decisions: 0, oursUs: [], seedUs: [], mismatches: 0, dispatched: 0 };
  while (head < inflight.length) {
    const done = inflight[head++]!;
    const sampled = result.decisions % stride === 0;
    byKey.get(`${done.runId}:${done.taskId}`)!.state = 'merged';
    let seedPick: SeedTask[] = [];
    if (sampled) {
      const t = nowUs();
      seedPick = seedTick(seed, GLOBAL_LIMIT - (inflight.length - head));
      result.seedUs.push(nowUs() - t);
    }
    const t0 = nowUs();
    index.markMerged(done.runId, done.taskId);
    const taken = index.take(GLOBAL_LIMIT - (inflight.length - head));
    result.oursUs.push(nowUs() - t0);
    if (sampled) {
      const a = taken.map((c) => `${c.runId}:${c.taskId}`).join(',');
      const b = seedPick.map((c) => `${c.runId}:${c.taskId}`).join(',');
      if (a !== b) result.mismatches++;
    }
    dispatch(taken);
    result.decisions++;
  }
  result.dispatched = inflight.length;
  return result;
}

interface ServerPathResult {
  burstMs: number;
  burstDispatched: number;
  completions: Completion[];
  readyQueryMs: number;
}

/**
 * The path the server takes (see server-path.ts): the first scheduling pass of the repository
 * (a burst up to its limit), then `samples` worker runs completing one at a time, each merged
 * (auto-approval) and followed by the next dispatch.
 */
async function serverPath(
  store: Store,
  repository: { id: number; owner: string; name: string },
  samples: number,
): Promise<ServerPathResult> {
  // Without the write budget: the burst dispatches up to a thousand tasks at once.
  const app = await serverApp(store, GLOBAL_LIMIT, { writeBudget: false });
  const readyStart = nowMs();
  // The claim's own query, at the claim's limit for a full repository's headroom.
  await store.attempts.readyTasks(repository.id, new Date(), REPO_LIMIT * 4 + 16);
  const readyQueryMs = nowMs() - readyStart;

  const burstStart = nowMs();
  const burstDispatched = await scheduleRepository(app.engine, repository.id);
  const burstMs = nowMs() - burstStart;
  const completions = await completeOldest(app, store, repository, samples);
  return { burstMs, burstDispatched, completions, readyQueryMs };
}

export interface SchedulingOptions {
  quick: boolean;
}

export async function runScheduling(report: Report, options: SchedulingOptions): Promise<void> {
  const cases: Array<Omit<Case, 'tasks'>> = [];
  let repositoryId = 900_000;
  for (const size of [1000, 10_000, 30_000])
    cases.push({ shape: 'fleet', size, repositoryId: repositoryId++ });
  const oneIssueSizes = options.quick ? [30_000] : [1000, 10_000, 30_000];
  for (const shape of ['wide', 'deep'] as const)
    for (const size of oneIssueSizes) cases.push({ shape, size, repositoryId: repositoryId++ });
  const seedSamples = options.quick ? 100 : 400;
  const serverSamples = options.quick ? 100 : 300;
  // The targets compare 30k with 1k; the full run adds 10k.
  const serverSizes = options.quick ? [1000, 30_000] : [1000, 10_000, 30_000];

  const database = await createBenchDatabase();
  const handle = await openBenchDatabase(database.url);
  const store = createStore(handle);
  try {
    const stored: Case[] = [];
    const setupStart = nowMs();
    for (const c of cases)
      stored.push({ ...c, tasks: await storeWorkload(store, c.shape, c.size, c.repositoryId) });
    await handle.db.execute(sql`analyze`);
    const totalTasks = stored.reduce((n, c) => n + c.tasks, 0);
    report.note(
      `scheduling: ${totalTasks} tasks stored (setPlan's rows, in bulk) in ${((nowMs() - setupStart) / 1000).toFixed(1)} s; fleet = issues of 30 (5 layers of 6, 2 deps each), wide = 100 roots each freeing ~300, deep = a chain; global limit ${GLOBAL_LIMIT}`,
    );

    for (const c of stored) {
      const name = c.shape === 'fleet' ? label(c.size) : `${c.shape}_${label(c.size)}`;
      // Cold load twice; the second (warm caches, as after a restart) is the figure.
      await coldLoad(handle.db, c.repositoryId);
      const start = nowMs();
      const loaded = await coldLoad(handle.db, c.repositoryId);
      const loadMs = nowMs() - start;
      const sim = simulate(loaded, c.tasks, seedSamples);
      const oursMean = mean(sim.oursUs);
      const seedMean = mean(sim.seedUs);
      report.note(
        `${c.shape} ${c.tasks} tasks: cold load ${loadMs.toFixed(0)} ms (queries ${loaded.queryMs.toFixed(0)} ms, index ${(loadMs - loaded.queryMs).toFixed(0)} ms; ${loaded.ready} ready); in-memory baseline ${sim.decisions} decisions mean ${oursMean.toFixed(1)} µs p99 ${percentile(sim.oursUs, 99).toFixed(1)} µs; seed ${sim.seedUs.length} sampled ticks mean ${seedMean.toFixed(0)} µs p99 ${percentile(sim.seedUs, 99).toFixed(0)} µs; ratio ${(seedMean / oursMean).toFixed(0)}x; ${sim.mismatches} decisions differ; ${sim.dispatched} dispatched`,
      );
      if (sim.dispatched !== c.tasks)
        throw new Error(`simulation dispatched ${sim.dispatched} of ${c.tasks}`);
      if (sim.mismatches > 0)
        throw new Error(`the seed and the in-memory baseline disagreed on ${sim.mismatches} ticks`);
      if (c.shape === 'fleet' && c.size === 30_000) {
        report.figure('cold_load_ms', loadMs, 'ms');
        report.figure('decide_p99_us', percentile(sim.oursUs, 99), 'µs');
        report.figure('decide_p50_us', percentile(sim.oursUs, 50), 'µs');
        report.figure('seed_tick_p99_us', percentile(sim.seedUs, 99), 'µs');
        report.figure('scheduler_ratio', seedMean / oursMean, 'x');
      }
      report.figure(`cold_load_ms_${name}`, loadMs, 'ms');
      report.figure(`decide_mean_us_${name}`, oursMean, 'µs');
      report.figure(`decide_p99_us_${name}`, percentile(sim.oursUs, 99), 'µs');
      report.figure(`seed_tick_mean_us_${name}`, seedMean, 'µs');
      report.figure(`scheduler_ratio_${name}`, seedMean / oursMean, 'x');
    }

    // The server's own path, through Postgres, on the fleet shape at each size.
    for (const c of stored.filter((s) => s.shape === 'fleet' && serverSizes.includes(s.size))) {
      const name = label(c.size);
      const repository = { id: c.repositoryId, owner: 'bench', name: `sched-fleet-${c.size}` };
      const result = await serverPath(store, repository, serverSamples);
      const ms = result.completions.map((x) => x.ms);
      const statements = result.completions.map((x) => x.statements);
      const dispatched = result.completions.reduce((n, x) => n + x.dispatched, 0);
      report.note(
        `fleet ${c.tasks} tasks, server path (workflow_run.completed → merge → next dispatch, Postgres, GitHub answering at once): ready-set query ${result.readyQueryMs.toFixed(1)} ms; first scheduling pass dispatched ${result.burstDispatched} in ${result.burstMs.toFixed(0)} ms; ${ms.length} completions (${dispatched} dispatches): p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms; statements p50 ${percentile(statements, 50)}, max ${Math.max(...statements)}`,
      );
      report.figure(`ready_query_ms_${name}`, result.readyQueryMs, 'ms');
      report.figure(`server_decide_p50_ms_${name}`, percentile(ms, 50), 'ms');
      report.figure(`server_decide_p99_ms_${name}`, percentile(ms, 99), 'ms');
      report.figure(`server_decide_statements_${name}`, percentile(statements, 50), 'statements');
      report.figure(`dispatch_burst_ms_${name}`, result.burstMs, 'ms');
    }
  } finally {
    await handle.close();
    await database.drop();
  }
}
