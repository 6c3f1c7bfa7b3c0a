// Benchmark 6: the fleet as users run it. The coordinator uses the production Octokit
// (Probot's throttling and retry plugins) and the installation write budget; the GitHub double
// answers every API call after 50–150 ms; each repository has its own owner, so its own
// installation, and one more installation is kept busy while a chain's merge → dispatch is timed.
import { loadavg } from 'node:os';
import type { TaskSpec } from '../src/core/plan/index.js';
import { GITHUB_WRITE_LIMITS } from '../src/github/write-budget.js';
import type { RequestLogEntry } from '../test/github-double/index.js';
import { isWrite } from '../test/github-double/double-base.js';
import { autoWorker, type WorkerOutcome } from '../test/github-double/worker/outcomes.js';
import { FLEET_REPO_CONFIG, SUBSCRIBED_EVENTS, trimDoubleLogs } from './fleet.js';
import { ask, nextMessage } from './lib/child.js';
import { startFleetStack, stopFleetStack } from './lib/fleet-stack.js';
import { layeredIssue, tasksBlock } from './lib/graphs.js';
import { githubBoundTasksPerHour, TOKEN_MINTS_PER_ATTEMPT } from './lib/github-bound.js';
import {
  addCounts,
  countCoordinatorCall,
  countWorkerAttempt,
  emptyCounts,
  ownerOf,
  type InstallationCounts,
} from './lib/installation-counts.js';
import type { Report } from './lib/report.js';
import { percentile } from './lib/stats.js';
import { WritePacer } from './lib/write-pacer.js';

const MAINTAINER = 'maintainer';
const LATENCY = { minMs: 50, maxMs: 150, seed: 25 };
const DISPATCH_ROUTE = 'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';
const MERGE_ROUTE = 'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge';
/** The installation whose merge → dispatch is timed while its other runs keep it busy. */
const BUSY_OWNER = 'busy-org';

/** The size of the production run. */
const SIZE = {
  /**
   * Installations of one repository and one issue each: the per-task counts come from these.
   * Issues of the fleet's shape (30 tasks in layers of 6), so the per-issue calls weigh the same.
   */
  installations: 10,
  tasksPerIssue: 30,
  layerWidth: 6,
  /** The busy installation: timed chains, each in its own repository… */
  chains: 2,
  chainTasks: 10,
  /** …and repositories of held work, let go to keep the installation's writes at the target. */
  backgroundRepos: 3,
  backgroundIssuesPerRepo: 2,
  backgroundTasksPerIssue: 12,
  /** Each phase's. */
  deadlineS: 420,
};
/**
 * The write budget's window (GITHUB_WRITE_LIMITS: 80 writes a minute per installation), as
 * writes a second. The busy installation is held at 80% of it, 1.07 a second: more than one
 * limiter of Probot's throttling plugin lets go (one write a second), so its queues fill.
 */
const BUDGET_WRITES_PER_S = GITHUB_WRITE_LIMITS.perWindow / (GITHUB_WRITE_LIMITS.windowMs / 1000);
const BUSY_SHARE = 0.8;
/** The other runs' tasks merged, at the pacer's rate, before the timed chains start. */
const WARM_UP_TASKS = 8;
/** How long a timed chain's agent works on a task. */
const CHAIN_WORK_MS = 10_000;

interface Sample {
  ms: number;
  owner: string;
  repo: string;
  /** When the last dep's merge was answered. */
  from: number;
}

interface BusyWrite {
  at: number;
  route: string;
  repo: string;
}

export async function runProduction(
  report: Report,
  options: { nodeArgs?: string[] },
): Promise<void> {
  const throughputTasks = SIZE.installations * SIZE.tasksPerIssue;
  report.note(
    `production: ${throughputTasks} tasks = ${SIZE.installations} installations × 1 issue × ${SIZE.tasksPerIssue} (layers of ${SIZE.layerWidth}); plus installation ${BUSY_OWNER}: ${SIZE.chains} chains of ${SIZE.chainTasks} (timed) and ${SIZE.backgroundRepos * SIZE.backgroundIssuesPerRepo * SIZE.backgroundTasksPerIssue} held tasks let go to keep its writes at ${(BUSY_SHARE * BUDGET_WRITES_PER_S).toFixed(2)}/s (${BUSY_SHARE * 100}% of the write budget); CoordinatorOctokit, write budget on, GitHub answering in ${LATENCY.minMs}–${LATENCY.maxMs} ms; deadline ${SIZE.deadlineS} s`,
  );
  const stack = await startFleetStack({
    subscribedEvents: SUBSCRIBED_EVENTS,
    nodeArgs: options.nodeArgs,
    env: { BENCH_PRODUCTION: '1' },
    answerLatency: LATENCY,
  });
  const { double, child } = stack;
  // Held work of the busy installation: worker runs waiting for the pacer to let them finish.
  const held: Array<(outcome?: WorkerOutcome) => void> = [];
  try {
    const { url } = await nextMessage<{ type: string; url: string }>(child, 'ready');
    double.setWebhookUrl(`${url}/api/github/webhooks`);

    const plans = new Map<string, Map<string, TaskSpec>>();
    const issues: Array<{ repo: string; number: number }> = [];
    const createRepo = async (owner: string, name: string) => {
      const repo = await double.createRepo({
        owner,
        name,
        ownerType: 'Organization',
        files: { 'README.md': `# ${name}\n`, '.github/agent-coordinator.yml': FLEET_REPO_CONFIG },
      });
      await double.setPermission(repo, MAINTAINER, 'maintain');
      return repo;
    };
    const addIssue = async (repo: string, tasks: TaskSpec[], title: string) => {
      const number = await double.openIssue(repo, {
        title,
        body: `${title}.\n\n${tasksBlock(tasks)}\n`,
        user: MAINTAINER,
      });
      plans.set(`${repo}#${number}`, new Map(tasks.map((t) => [t.id, t])));
      issues.push({ repo, number });
    };
    // One owner per repository: the double makes one installation per owner.
    for (let i = 0; i < SIZE.installations; i++)
      await addIssue(
        await createRepo(`prod-${i}`, 'service'),
        layeredIssue(SIZE.tasksPerIssue, SIZE.layerWidth, 2000 + i),
        `Feature ${i}`,
      );
    const chainRepos = new Set<string>();
    for (let c = 0; c < SIZE.chains; c++) {
      const repo = await createRepo(BUSY_OWNER, `chain-${c}`);
      chainRepos.add(repo);
      await addIssue(repo, layeredIssue(SIZE.chainTasks, 1, 3000 + c), `Chain ${c}`);
    }
    const backgroundRepos = new Set<string>();
    for (let r = 0; r < SIZE.backgroundRepos; r++) {
      const repo = await createRepo(BUSY_OWNER, `background-${r}`);
      backgroundRepos.add(repo);
      for (let i = 0; i < SIZE.backgroundIssuesPerRepo; i++)
        await addIssue(
          repo,
          layeredIssue(SIZE.backgroundTasksPerIssue, 4, 4000 + r * 10 + i),
          `Background ${r}.${i}`,
        );
    }
    await ask(child, { type: 'idle' }, 'idle', 120_000);

    const counts = new Map<string, InstallationCounts>();
    const countsOf = (owner: string) => {
      let c = counts.get(owner);
      if (!c) counts.set(owner, (c = emptyCounts()));
      return c;
    };
    const unattributed = emptyCounts();
    const mergedAt = new Map<string, number>();
    const readySince = new Map<string, number>();
    const dispatched = new Set<string>();
    const samples: Sample[] = [];
    const pullTask = new Map<string, string>();
    const openHeads = new Set<string>();
    const busyWrites: BusyWrite[] = [];
    const throughputWrites: BusyWrite[] = [];
    let throughputMerged = 0;
    let chainMerged = 0;
    let attempts = 0;
    let requests = 0;
    const closedIssues = new Set<string>();
    // Set up for the busy phase, once the throughput phase has said how many writes a task makes.
    const paced: { pacer?: WritePacer } = {};
    let phase: 'throughput' | 'busy' = 'throughput';
    let backgroundMerged = 0;
    let warmedUp: () => void = () => {};
    let phaseDone: () => void = () => {};
    const repoOf = (path: string) => path.split('/').slice(2, 4).join('/');

    double.on('request', (entry: RequestLogEntry) => {
      // Emitted as the answer goes out: the time the coordinator has it.
      const answeredAt = Date.now();
      const owner = ownerOf(entry.path);
      // GraphQL names no owner in its path: counted apart, with the App's own calls.
      countCoordinatorCall(owner ? countsOf(owner) : unattributed, entry);
      if (++requests % 1000 === 0) trimDoubleLogs(double);
      if (!owner) return;
      const repo = repoOf(entry.path);
      if (isWrite(entry) && owner !== BUSY_OWNER && phase === 'throughput')
        throughputWrites.push({ at: entry.receivedAtMs, route: entry.route ?? entry.path, repo });
      if (owner === BUSY_OWNER && isWrite(entry)) {
        busyWrites.push({ at: entry.receivedAtMs, route: entry.route ?? entry.path, repo });
        paced.pacer?.wrote(entry.receivedAtMs);
      }
      if (entry.route === DISPATCH_ROUTE && entry.status < 300) {
        const body = entry.body as { ref?: string; inputs?: Record<string, string> };
        const inputs = body.inputs ?? {};
        attempts++;
        if (inputs.task_id === 'plan') countWorkerAttempt(countsOf(owner), 'plan');
        else
          countWorkerAttempt(
            countsOf(owner),
            openHeads.has(`${repo}:${body.ref}`) ? 'updates' : 'opens',
          );
        const key = `${repo}#${inputs.issue}/${inputs.task_id}`;
        const ready = readySince.get(key);
        if (ready !== undefined && !dispatched.has(key))
          samples.push({ ms: entry.receivedAtMs - ready, owner, repo, from: ready });
        dispatched.add(key);
      }
      if (entry.route === MERGE_ROUTE && entry.status === 200) {
        const task = pullTask.get(`${repo}#${entry.path.split('/')[5]}`);
        if (!task) return;
        const [, issue, taskId] = task.split('/');
        const key = `${repo}#${issue}`;
        mergedAt.set(`${key}/${taskId}`, answeredAt);
        for (const t of plans.get(key)?.values() ?? [])
          if (t.deps.includes(taskId!) && t.deps.every((d) => mergedAt.has(`${key}/${d}`)))
            readySince.set(`${key}/${t.id}`, answeredAt);
        if (backgroundRepos.has(repo)) {
          paced.pacer?.taskMerged();
          if (++backgroundMerged === WARM_UP_TASKS) warmedUp();
        } else if (chainRepos.has(repo)) {
          // The figure's span starts here: the pacer holds the average from here on.
          if (chainMerged++ === 0) paced.pacer?.restart(answeredAt);
        } else throughputMerged++;
        if (phase === 'throughput' && throughputMerged === throughputTasks) phaseDone();
        if (phase === 'busy' && chainMerged === SIZE.chains * SIZE.chainTasks) phaseDone();
      }
    });
    double.on(
      'webhook-sent',
      (d: { event: string; action: string | null; payload: Record<string, unknown> }) => {
        const repo = (d.payload.repository as { full_name?: string } | undefined)?.full_name;
        if (d.event === 'pull_request' && repo) {
          const pr = d.payload.pull_request as { number: number; head: { ref: string } };
          if (d.action === 'opened') {
            pullTask.set(`${repo}#${pr.number}`, pr.head.ref);
            openHeads.add(`${repo}:${pr.head.ref}`);
          }
          if (d.action === 'closed') openHeads.delete(`${repo}:${pr.head.ref}`);
        }
        if (d.event === 'issues' && d.action === 'closed' && repo) {
          const issue = d.payload.issue as { number: number };
          closedIssues.add(`${repo}#${issue.number}`);
        }
      },
    );

    // Held work of the busy installation: its worker runs wait until the pacer lets one go.
    double.setWorker((run, ctx) => {
      // A chain's agent works for a while, as agents do: the chains alone would otherwise
      // write as fast as the budget lets them, and leave the other runs no share of it.
      if (chainRepos.has(run.repo) && run.inputs['mode'] !== 'plan')
        return new Promise<WorkerOutcome>((resolve) =>
          setTimeout(() => resolve(autoWorker(run, ctx) as WorkerOutcome), CHAIN_WORK_MS),
        );
      if (!backgroundRepos.has(run.repo) || run.inputs['mode'] === 'plan')
        return autoWorker(run, ctx);
      return new Promise<WorkerOutcome>((resolve) =>
        held.push((outcome = autoWorker(run, ctx) as WorkerOutcome) => resolve(outcome)),
      );
    });

    // One phase: its issues labelled, then until its last merge (or its deadline).
    const runPhase = async (name: string, labelled: typeof issues, progress: () => string) => {
      const start = Date.now();
      const done = new Promise<void>((resolve) => (phaseDone = resolve));
      await Promise.all(
        labelled.map((issue) => double.addLabel(issue.repo, issue.number, 'agent', MAINTAINER)),
      );
      const ticker = setInterval(
        () => report.note(`  ${name} ${((Date.now() - start) / 1000).toFixed(0)} s: ${progress()}`),
        15_000,
      );
      const deadline = new Promise<'deadline'>((resolve) =>
        setTimeout(() => resolve('deadline'), SIZE.deadlineS * 1000).unref(),
      );
      const outcome = await Promise.race([done.then(() => 'done' as const), deadline]);
      clearInterval(ticker);
      return { outcome, elapsedS: (Date.now() - start) / 1000 };
    };
    // Phase 1: the installations of one issue each, to the last merge and the issues' close.
    const throughputIssues = issues.filter((i) => i.repo.startsWith('prod-'));
    const one = await runPhase(
      'throughput',
      throughputIssues,
      () => `${throughputMerged}/${throughputTasks} merged`,
    );
    // The issues' last status edits, labels and closes belong to their tasks.
    const settleStart = Date.now();
    while (
      one.outcome === 'done' &&
      throughputIssues.some((i) => !closedIssues.has(`${i.repo}#${i.number}`)) &&
      Date.now() - settleStart < 60_000
    )
      await new Promise((resolve) => setTimeout(resolve, 200));
    await ask(child, { type: 'idle' }, 'idle', 120_000).catch(() => undefined);
    const total = emptyCounts();
    for (const [owner, c] of counts) if (owner.startsWith('prod-')) addCounts(total, c);
    const phaseOneAttempts = attempts;
    report.note(
      `load average after the throughput phase: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );

    // Phase 2: the busy installation, its held work let go at the pacer's rate.
    phase = 'busy';
    const busyPacer = new WritePacer(
      {
        targetPerS: BUSY_SHARE * BUDGET_WRITES_PER_S,
        writesPerTask: total.coordinatorWrites / Math.max(1, throughputMerged),
        leadMs: 5_000,
        maxOutstanding: 8,
      },
      Date.now(),
    );
    paced.pacer = busyPacer;
    const pacing = setInterval(() => {
      if (held.length > 0 && busyPacer.shouldRelease(Date.now())) held.shift()!();
    }, 250);
    // The other runs first, until the pacer holds them at the target: their start (a status
    // comment, and a branch and a dispatch for each root, all at once) is a burst of its own,
    // which the timed chains do not start in.
    const warmUpStart = Date.now();
    const warm = new Promise<void>((resolve) => (warmedUp = resolve));
    await Promise.all(
      issues
        .filter((i) => backgroundRepos.has(i.repo))
        .map((issue) => double.addLabel(issue.repo, issue.number, 'agent', MAINTAINER)),
    );
    await Promise.race([
      warm,
      new Promise((resolve) => setTimeout(resolve, SIZE.deadlineS * 1000).unref()),
    ]);
    report.note(
      `busy installation warmed up: ${backgroundMerged} of its other runs' tasks merged in ${((Date.now() - warmUpStart) / 1000).toFixed(0)} s before the chains were labelled`,
    );
    const two = await runPhase(
      'busy',
      issues.filter((i) => chainRepos.has(i.repo)),
      () =>
        `${chainMerged}/${SIZE.chains * SIZE.chainTasks} chain tasks merged, ${held.length} background runs held`,
    );
    clearInterval(pacing);

    const merged = Math.max(1, throughputMerged);
    const perTask = {
      writes: total.writes / merged,
      contentCreations: total.contentCreations / merged,
      calls: total.calls / merged,
    };
    const busy = samples.filter((s) => chainRepos.has(s.repo));
    const others = samples.filter((s) => s.owner !== BUSY_OWNER).map((s) => s.ms);
    const busyMs = busy.map((s) => s.ms);
    const window = busySpan(mergedAt, chainRepos);
    const busyRate =
      busyWrites.filter((w) => w.at >= window.from && w.at <= window.to).length /
      Math.max(1, (window.to - window.from) / 1000);
    report.note(
      `production throughput phase ${one.outcome}: ${throughputMerged}/${throughputTasks} tasks merged in ${one.elapsedS.toFixed(0)} s, ${throughputIssues.filter((i) => closedIssues.has(`${i.repo}#${i.number}`)).length}/${throughputIssues.length} issues closed, ${phaseOneAttempts} worker attempts; busy phase ${two.outcome}: ${chainMerged}/${SIZE.chains * SIZE.chainTasks} chain tasks merged in ${two.elapsedS.toFixed(0)} s`,
    );
    report.note(
      `per merged task (the ${SIZE.installations} installations): ${perTask.calls.toFixed(2)} calls, ${perTask.writes.toFixed(2)} writes (${(total.coordinatorWrites / merged).toFixed(2)} the coordinator's), ${perTask.contentCreations.toFixed(2)} content creations; not in these counts: GraphQL calls (their own limit) ${unattributed.calls} in the whole run; App JWT calls ${unattributed.appCalls} in the whole run, plus ${TOKEN_MINTS_PER_ATTEMPT} token mints per worker attempt for its assignments (${((phaseOneAttempts * TOKEN_MINTS_PER_ATTEMPT) / merged).toFixed(2)} a task)`,
    );
    const routes = [...total.byRoute].sort((a, b) => b[1] - a[1]);
    report.note(
      `calls per merged task by route: ${routes.map(([r, n]) => `${r} ${(n / merged).toFixed(3)}`).join('; ')}`,
    );
    report.note(
      `merge → dispatch in ${BUSY_OWNER}: ${busyMs.length} samples, p50 ${percentile(busyMs, 50).toFixed(0)} ms, p90 ${percentile(busyMs, 90).toFixed(0)} ms, max ${Math.max(...busyMs).toFixed(0)} ms, while its coordinator writes ran at ${busyRate.toFixed(2)}/s (${((busyRate / BUDGET_WRITES_PER_S) * 100).toFixed(0)}% of the write budget's 80 a minute); in the throughput phase (no other run of the installation, other installations busy): ${others.length} samples, p50 ${percentile(others, 50).toFixed(0)} ms, p99 ${percentile(others, 99).toFixed(0)} ms`,
    );
    report.note(
      `writes sent between a merge and its dependent's dispatch: ${describeBetween(busy, busyWrites)}`,
    );
    report.note(`the busy installation's write spacing: ${describeSpacing(busyWrites)}`);
    report.note(
      `the throughput phase's slowest merge → dispatch: ${describeSlowest(
        samples.filter((s) => s.owner !== BUSY_OWNER),
        throughputWrites,
      )}`,
    );
    report.figure('production_tasks', throughputMerged, 'tasks');
    report.figure('writes_per_task', perTask.writes, 'writes');
    report.figure('api_calls_per_task', perTask.calls, 'calls');
    report.figure('content_creations_per_task', perTask.contentCreations, 'creations');
    report.figure('github_bound_tasks_per_hour', githubBoundTasksPerHour(perTask), 'tasks/h');
    report.figure('merge_to_dispatch_p99_ms', percentile(busyMs, 99), 'ms');
    report.figure('merge_to_dispatch_p50_ms', percentile(busyMs, 50), 'ms');
    report.figure('merge_to_dispatch_write_load', busyRate / BUDGET_WRITES_PER_S, 'share');
  } finally {
    // Runs still held do nothing, so the double's close does not wait for them.
    await stopFleetStack(stack, report, () => {
      for (const release of held.splice(0)) release({ kind: 'manual' });
    });
  }
}

/**
 * The busy installation's writes received between each timed merge's answer and its
 * dependent's dispatch: the chain's own (its critical path) and the other runs' (in front of
 * it in the throttling plugin's queue), per sample, by route.
 */
function describeBetween(samples: Sample[], writes: BusyWrite[]): string {
  const own = new Map<string, number>();
  let others = 0;
  for (const s of samples)
    for (const w of writes) {
      if (w.at <= s.from || w.at >= s.from + s.ms) continue;
      if (w.repo === s.repo) own.set(w.route, (own.get(w.route) ?? 0) + 1);
      else others++;
    }
  const n = Math.max(1, samples.length);
  const ownRoutes = [...own].map(([route, count]) => `${route} ${(count / n).toFixed(2)}`);
  const slowest = samples.reduce<Sample | undefined>(
    (a, b) => (a && a.ms >= b.ms ? a : b),
    undefined,
  );
  const inSlowest = slowest
    ? writes.filter((w) => w.at > slowest.from && w.at < slowest.from + slowest.ms)
    : [];
  return `the chain's own ${ownRoutes.join(', ') || 'none'}; other runs' ${(others / n).toFixed(2)} (per sample, over ${samples.length}); in the slowest (${slowest?.ms.toFixed(0)} ms) ${inSlowest.filter((w) => w.repo === slowest?.repo).length} of the chain's own and ${inSlowest.filter((w) => w.repo !== slowest?.repo).length} of other runs`;
}

/**
 * How far apart the installation's writes arrived: the throttling plugin starts one a second
 * (three seconds for routes that notify people), so closer ones went around it.
 */
function describeSpacing(writes: BusyWrite[]): string {
  const sorted = [...writes].sort((a, b) => a.at - b.at);
  const close = new Map<string, number>();
  let n = 0;
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.at - sorted[i - 1]!.at >= 900) continue;
    n++;
    const pair = `${sorted[i - 1]!.route} → ${sorted[i]!.route}`;
    close.set(pair, (close.get(pair) ?? 0) + 1);
  }
  const top = [...close].sort((a, b) => b[1] - a[1]).slice(0, 6);
  return `${n} of ${sorted.length} writes came less than 0.9 s after the one before${top.length ? `: ${top.map(([pair, count]) => `${pair} ${count}`).join('; ')}` : ''}`;
}

/** From the chains' first merge to their last: the span whose write rate the figure reports. */
function busySpan(mergedAt: Map<string, number>, chainRepos: Set<string>) {
  const times = [...mergedAt]
    .filter(([key]) => chainRepos.has(key.split('#')[0]!))
    .map(([, at]) => at);
  return { from: Math.min(...times), to: Math.max(...times) };
}

/**
 * The slowest samples of installations of their own: the writes of the installation sent while
 * each waited, and how many its window held (the last minute's) when its dispatch went.
 */
function describeSlowest(samples: Sample[], writes: BusyWrite[]): string {
  const ownerOfRepo = (repo: string) => repo.split('/')[0];
  return [...samples]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 4)
    .map((s) => {
      const own = writes.filter((w) => ownerOfRepo(w.repo) === s.owner);
      const to = s.from + s.ms;
      const between = own.filter((w) => w.at > s.from && w.at < to).length;
      const inWindow = own.filter((w) => w.at > to - 60_000 && w.at <= to).length;
      return `${s.ms.toFixed(0)} ms (${between} writes of its installation meanwhile, ${inWindow} in the minute up to its dispatch)`;
    })
    .join('; ');
}
