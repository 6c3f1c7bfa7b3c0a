// Benchmark 3: a fleet of issues driven through the GitHub double with simulated workers and
// auto-approval, against the real coordinator (its own process) on Postgres.
import { DEFAULT_CONCURRENCY } from '../src/webhooks/processor.js';
import type { TaskSpec } from '../src/core/plan/index.js';
import type { GitHubDouble } from '../test/github-double/scenario.js';
import type { DeliveryView, RequestLogEntry } from '../test/github-double/index.js';
import { isWrite } from '../test/github-double/double-base.js';
import { CONTENT_WRITES } from '../test/github-double/server/content-writes.js';
import { ask, nextMessage } from './lib/child.js';
import { MAX_PARALLEL, startFleetStack, stopFleetStack } from './lib/fleet-stack.js';
import { CpuMeter, DatabaseCpuMeter } from './lib/cpu.js';
import { layeredIssue, tasksBlock } from './lib/graphs.js';
import {
  bucketPercentile,
  describeHandling,
  type Buckets,
  type HandlingByEvent,
} from './lib/metrics.js';
import { profileDirOf, profileSelf } from './lib/self-profile.js';
import type { Report } from './lib/report.js';
import { nowMs, percentile } from './lib/stats.js';

const OWNER = 'fleet-org';
const MAINTAINER = 'maintainer';
/** The App's subscription (app.yml `default_events`): the double delivers only these. */
export const SUBSCRIBED_EVENTS = [
  'issues',
  'issue_comment',
  'pull_request',
  'pull_request_review',
  'check_run',
  'check_suite',
  'workflow_run',
  'workflow_job',
  'merge_group',
];
export const FLEET_REPO_CONFIG = [
  'plan:',
  '  maxTasks: 5000',
  'concurrency:',
  '  maxParallel: 1000',
  'merge:',
  '  requireApproval: false',
  'budget:',
  '  maxCostUsdPerRun: 100000',
  '',
].join('\n');
const DISPATCH_ROUTE = 'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';
const MERGE_ROUTE = 'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge';

export interface FleetSize {
  issues: number;
  tasksPerIssue: number;
  layerWidth: number;
  repositories: number;
  /** Stop measuring here even if the fleet is not done (the figures then cover what merged). */
  deadlineS: number;
  /** Set for a `--fleet-size` run: its figures are named `size_<spec>_*`. */
  spec?: string;
}

export const QUICK_FLEET: FleetSize = {
  issues: 20,
  tasksPerIssue: 15,
  layerWidth: 3,
  repositories: 4,
  deadlineS: 60,
};
export const FULL_FLEET: FleetSize = {
  issues: 1000,
  tasksPerIssue: 30,
  layerWidth: 6,
  repositories: 50,
  deadlineS: 900,
};

/**
 * `--fleet-size <issues>x<tasks per issue>x<repositories>`, e.g. `100x30x10` (3,000 tasks): a
 * size between the quick and the full fleet, to see how per-task costs grow in a few minutes.
 * Layers are a fifth of an issue's tasks, as in both fixed sizes; the deadline allows 10 tasks
 * a second (at least 60 s, at most the full run's 900 s).
 */
export function parseFleetSize(spec: string): FleetSize {
  const parts = /^(\d+)x(\d+)x(\d+)$/.exec(spec)?.slice(1).map(Number);
  if (!parts || parts.some((n) => n < 1) || parts[1]! < 5)
    throw new Error(
      `--fleet-size takes <issues>x<tasks per issue ≥ 5>x<repositories>; got "${spec}"`,
    );
  const [issues, tasksPerIssue, repositories] = parts as [number, number, number];
  const deadlineS = Math.min(900, Math.max(60, Math.ceil((issues * tasksPerIssue) / 10)));
  return {
    issues,
    tasksPerIssue,
    layerWidth: Math.max(1, Math.floor(tasksPerIssue / 5)),
    repositories,
    deadlineS,
    spec,
  };
}

/** The double keeps every request and delivery (with payloads) forever; a long run trims them. */
export function trimDoubleLogs(double: GitHubDouble): void {
  const core = (double as unknown as { core: { requests: unknown[]; deliveries: unknown[] } }).core;
  if (core.requests.length > 4000) core.requests.splice(0, core.requests.length - 1000);
  if (core.deliveries.length > 4000) core.deliveries.splice(0, core.deliveries.length - 1000);
}

interface Tracker {
  apiCalls: number;
  contentWrites: number;
  /** Every write (what the installation write budget counts): non-GET, GraphQL mutations. */
  writes: number;
  failedCalls: number;
  byRoute: Map<string, number>;
  merges: number;
  /** `${repo}#${issue}/${task}` → when its PR merged (ms, monotonic). */
  mergedAt: Map<string, number>;
  dispatches: Map<string, number>;
  /** deps-merged → dispatch-sent, for tasks with deps. */
  dispatchLatency: number[];
  /** The same, only for tasks whose deps merged while the global cap had room. */
  dispatchLatencyFree: number[];
  readySince: Map<string, { at: number; capped: boolean }>;
  /** Worker runs not completed, as the double sees them. */
  inflight: number;
  dispatched: number;
  peakInflight: number;
  pullTask: Map<string, string>;
  issuesClosed: number;
}

export async function runFleet(
  report: Report,
  options: {
    quick: boolean;
    nodeArgs?: string[];
    processorConcurrency?: number;
    size?: FleetSize;
  },
): Promise<void> {
  const size = options.size ?? (options.quick ? QUICK_FLEET : FULL_FLEET);
  // A what-if run or another size never overwrites the headline figures.
  const c = options.processorConcurrency;
  const prefix = `${c ? `whatif_c${c}_` : ''}${size.spec ? `size_${size.spec}_` : ''}`;
  const name = (figure: string) => `${prefix}${figure}`;
  if (c)
    report.note(
      `WHAT-IF: the delivery processor's concurrency is ${c} (the app's is ${DEFAULT_CONCURRENCY})`,
    );
  const total = size.issues * size.tasksPerIssue;
  report.note(
    `fleet: ${total} tasks = ${size.issues} issues × ${size.tasksPerIssue} (layers of ${size.layerWidth}, 2 deps each) over ${size.repositories} repositories; COORDINATOR_MAX_PARALLEL ${MAX_PARALLEL}, concurrency.maxParallel 1000, merge.requireApproval false; deadline ${size.deadlineS} s`,
  );
  const stack = await startFleetStack({
    subscribedEvents: SUBSCRIBED_EVENTS,
    nodeArgs: options.nodeArgs,
    env: options.processorConcurrency
      ? { BENCH_PROCESSOR_CONCURRENCY: String(options.processorConcurrency) }
      : {},
  });
  const { database, double, child } = stack;
  try {
    const { url } = await nextMessage<{ type: string; url: string }>(child, 'ready');
    double.setWebhookUrl(`${url}/api/github/webhooks`);

    // Plans: deps per task, to know when a task's deps have all merged.
    const plans = new Map<string, Map<string, TaskSpec>>();
    const repos: string[] = [];
    for (let r = 0; r < size.repositories; r++) {
      const repo = await double.createRepo({
        owner: OWNER,
        name: `service-${r}`,
        ownerType: 'Organization',
        files: {
          'README.md': `# service ${r}\n`,
          '.github/agent-coordinator.yml': FLEET_REPO_CONFIG,
        },
      });
      await double.setPermission(repo, MAINTAINER, 'maintain');
      repos.push(repo);
    }
    const issues: Array<{ repo: string; number: number }> = [];
    for (let i = 0; i < size.issues; i++) {
      const repo = repos[i % repos.length]!;
      const tasks = layeredIssue(size.tasksPerIssue, size.layerWidth, 1000 + i);
      const number = await double.openIssue(repo, {
        title: `Feature ${i}`,
        body: `Build feature ${i}.\n\n${tasksBlock(tasks)}\n`,
        user: MAINTAINER,
      });
      plans.set(`${repo}#${number}`, new Map(tasks.map((t) => [t.id, t])));
      issues.push({ repo, number });
    }
    await ask(child, { type: 'idle' }, 'idle', 120_000);

    const t: Tracker = {
      apiCalls: 0,
      contentWrites: 0,
      writes: 0,
      failedCalls: 0,
      byRoute: new Map(),
      merges: 0,
      mergedAt: new Map(),
      dispatches: new Map(),
      dispatchLatency: [],
      dispatchLatencyFree: [],
      readySince: new Map(),
      inflight: 0,
      dispatched: 0,
      peakInflight: 0,
      pullTask: new Map(),
      issuesClosed: 0,
    };
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => (done = resolve));
    const repoOf = (path: string) => path.split('/').slice(2, 4).join('/');

    // A task whose deps all merged is ready from that moment; remember whether the cap was full.
    const onMerged = (repo: string, issue: string, taskId: string, at: number) => {
      const key = `${repo}#${issue}`;
      t.mergedAt.set(`${key}/${taskId}`, at);
      const plan = plans.get(key);
      if (!plan) return;
      for (const task of plan.values()) {
        if (!task.deps.includes(taskId)) continue;
        if (task.deps.every((d) => t.mergedAt.has(`${key}/${d}`)))
          // The cap as the coordinator sees it: dispatched, and not yet merged (auto-approval
          // merges as soon as it handles the run's completion, so its backlog counts as busy).
          t.readySince.set(`${key}/${task.id}`, {
            at,
            capped: t.dispatched - t.merges >= MAX_PARALLEL,
          });
      }
    };

    double.on('request', (entry: RequestLogEntry) => {
      const at = nowMs();
      t.apiCalls++;
      if (entry.status >= 400) t.failedCalls++;
      const route = entry.route ?? `${entry.method} ${entry.path}`;
      t.byRoute.set(route, (t.byRoute.get(route) ?? 0) + 1);
      if (entry.route && CONTENT_WRITES.has(entry.route) && entry.status < 400) t.contentWrites++;
      if (entry.actor === double.botLogin && isWrite(entry)) t.writes++;
      if (entry.route === DISPATCH_ROUTE && entry.status < 300) {
        const inputs = (entry.body as { inputs?: Record<string, string> }).inputs ?? {};
        if (inputs.task_id === 'plan') return;
        const key = `${repoOf(entry.path)}#${inputs.issue}/${inputs.task_id}`;
        t.dispatches.set(key, (t.dispatches.get(key) ?? 0) + 1);
        t.dispatched++;
        t.inflight++;
        t.peakInflight = Math.max(t.peakInflight, t.inflight);
        const ready = t.readySince.get(key);
        if (ready && (t.dispatches.get(key) ?? 0) === 1) {
          t.dispatchLatency.push(at - ready.at);
          if (!ready.capped) t.dispatchLatencyFree.push(at - ready.at);
        }
      }
      if (entry.route === MERGE_ROUTE && entry.status === 200) {
        const task = t.pullTask.get(`${repoOf(entry.path)}#${entry.path.split('/')[5]}`);
        if (task) {
          const [, issue, taskId] = task.split('/');
          onMerged(repoOf(entry.path), issue!, taskId!, at);
        }
        t.merges++;
        if (t.merges === total) done();
      }
      if (t.apiCalls % 1000 === 0) trimDoubleLogs(double);
    });
    double.on(
      'webhook-sent',
      (
        d: {
          event: string;
          action: string | null;
          payload: Record<string, unknown>;
        } & Partial<DeliveryView>,
      ) => {
        if (d.event === 'pull_request' && d.action === 'opened') {
          const pr = d.payload.pull_request as { number: number; head: { ref: string } };
          const repo = (d.payload.repository as { full_name: string }).full_name;
          t.pullTask.set(`${repo}#${pr.number}`, pr.head.ref);
        }
        if (d.event === 'workflow_run' && d.action === 'completed') {
          const run = d.payload.workflow_run as { display_title?: string };
          if (!run.display_title?.includes(' plan ')) t.inflight--;
        }
        if (d.event === 'issues' && d.action === 'closed') t.issuesClosed++;
      },
    );

    const cpu = new CpuMeter(child.pid);
    const databaseCpu = new DatabaseCpuMeter(() => database.backends());
    // With --profile, the double's own profile beside the coordinator's.
    const selfProfile = await profileSelf(profileDirOf(options.nodeArgs), 'fleet-double');
    const start = nowMs();
    // Maintainers label their issues; each repository's webhooks arrive in order, like GitHub's.
    await Promise.all(
      repos.map(async (repo) => {
        for (const issue of issues.filter((i) => i.repo === repo))
          await double.addLabel(repo, issue.number, 'agent', MAINTAINER);
      }),
    );
    const labelledMs = nowMs() - start;
    let progress = 0;
    const ticker = setInterval(() => {
      const s = (nowMs() - start) / 1000;
      report.note(
        `  ${s.toFixed(0)} s: ${t.merges}/${total} merged, ${t.dispatched - t.merges} dispatched and not merged, ${t.inflight} worker runs going (peak ${t.peakInflight}), ${t.apiCalls} API calls`,
      );
      progress = t.merges;
    }, 15_000);
    const deadline = new Promise<'deadline'>((resolve) =>
      setTimeout(() => resolve('deadline'), size.deadlineS * 1000).unref(),
    );
    const outcome = await Promise.race([finished.then(() => 'done' as const), deadline]);
    clearInterval(ticker);
    const elapsedS = (nowMs() - start) / 1000;
    const merged = t.merges;
    void progress;
    // Let the final status edits, labels and closes land before counting calls.
    if (outcome === 'done') {
      const settleStart = nowMs();
      while (t.issuesClosed < size.issues && nowMs() - settleStart < 60_000)
        await new Promise((resolve) => setTimeout(resolve, 200));
      await double.waitForDeliveries();
      await ask(child, { type: 'idle' }, 'idle', 120_000);
    }
    const used = cpu.elapsed();
    const postgresMs = await databaseCpu.stop();
    const doubleProfile = await selfProfile.stop();
    if (doubleProfile) report.note(`the double's CPU profile: ${doubleProfile}`);
    const stats = await ask<{
      type: string;
      rssPeakMb: number;
      rssMb: number;
      heapMb: number;
      byStatus: Record<string, number>;
      handling: HandlingByEvent;
      statements: Buckets;
    }>(child, { type: 'stats' }, 'stats');
    const twice = [...t.dispatches.values()].filter((n) => n > 1).length;
    report.note(
      `fleet ${outcome}: ${merged}/${total} tasks merged in ${elapsedS.toFixed(1)} s (labels delivered in ${(labelledMs / 1000).toFixed(1)} s); ${t.issuesClosed}/${size.issues} issues closed; peak ${t.peakInflight} in flight; ${t.failedCalls} API calls answered ≥ 400; deliveries ${JSON.stringify(stats.byStatus)}`,
    );
    const perTask = (ms: number) => ms / Math.max(1, merged);
    report.note(
      `fleet CPU: coordinator ${(used.childMs / 1000).toFixed(0)} s, Postgres (this database's backends) ${(postgresMs / 1000).toFixed(0)} s (every postgres process on the machine: ${(used.postgresMs / 1000).toFixed(0)} s), double + workers ${(used.selfMs / 1000).toFixed(0)} s over ${elapsedS.toFixed(0)} s on 2 CPUs; per merged task: coordinator ${perTask(used.childMs).toFixed(1)} ms, Postgres ${perTask(postgresMs).toFixed(1)} ms, double ${perTask(used.selfMs).toFixed(1)} ms`,
    );
    report.note(
      `statements per delivery handled: ${stats.statements.total} deliveries, p50 ≤ ${bucketPercentile(stats.statements, 50)}, p90 ≤ ${bucketPercentile(stats.statements, 90)}, p99 ≤ ${bucketPercentile(stats.statements, 99)}; mean by event: ${Object.entries(
        stats.statements.meanByEvent,
      )
        .sort((a, b) => b[1] - a[1])
        .map(([event, mean]) => `${event} ${mean.toFixed(1)}`)
        .join(', ')}`,
    );
    report.note(`fleet handling time by event (mean × count): ${describeHandling(stats.handling)}`);
    const top = [...t.byRoute].sort((a, b) => b[1] - a[1]).slice(0, 12);
    report.note(
      `API calls per merged task by route: ${top.map(([r, n]) => `${r} ${(n / Math.max(1, merged)).toFixed(2)}`).join('; ')}`,
    );
    report.figure(name('fleet_tasks'), merged, 'tasks');
    if (size === FULL_FLEET) {
      report.figure(name('fleet_full_merged'), merged, 'tasks');
      report.figure(name('fleet_full_s'), elapsedS, 's');
    }
    report.figure(name('cpu_ms_per_task'), perTask(used.childMs + postgresMs), 'ms');
    report.figure(name('double_cpu_ms_per_task'), perTask(used.selfMs), 'ms');
    report.figure(
      name('statements_per_delivery_p50'),
      bucketPercentile(stats.statements, 50),
      'statements',
    );
    report.figure(
      name('statements_per_delivery_p99'),
      bucketPercentile(stats.statements, 99),
      'statements',
    );
    report.figure(name('fleet_tasks_per_s'), merged / elapsedS, 'tasks/s');
    report.figure(name('fleet_api_calls_per_task'), t.apiCalls / Math.max(1, merged), 'calls');
    report.figure(
      name('fleet_content_writes_per_task'),
      t.contentWrites / Math.max(1, merged),
      'writes',
    );
    report.figure(name('fleet_writes_per_task'), t.writes / Math.max(1, merged), 'writes');
    report.figure(name('dispatch_p99_ms'), percentile(t.dispatchLatency, 99), 'ms');
    report.figure(name('dispatch_p50_ms'), percentile(t.dispatchLatency, 50), 'ms');
    report.figure(name('dispatch_uncapped_p99_ms'), percentile(t.dispatchLatencyFree, 99), 'ms');
    report.figure(name('rss_mb'), stats.rssPeakMb, 'MB');
    report.figure(name('dispatched_twice'), twice, 'tasks');
  } finally {
    await stopFleetStack(stack, report);
  }
}
