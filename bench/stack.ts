// Benchmark: label → last merge with and without `dispatch.stack` (docs/stacking.md), for a
// chain of five tasks and the docs/tasks-block.md diamond, on the GitHub double with the
// coordinator in process. The double has no simulated clock: agent, CI and review take scaled
// real delays (one "minute" is UNIT_MS), in the proportions the README states.
import { GITHUB_WRITE_LIMITS } from '../src/github/write-budget.js';
import { startGitHubDouble } from '../test/github-double/index.js';
import type { GitHubDouble } from '../test/github-double/scenario.js';
import { CONTENT_WRITES } from '../test/github-double/server/content-writes.js';
import { isContentCreation } from './lib/github-bound.js';
import { SPEC_EXAMPLE_PLAN } from '../test/fixtures/spec-example-plan.js';
import { assignmentOf } from '../test/helpers/assignment.js';
import {
  startTestCoordinator,
  TEST_APP_ID,
  TEST_WEBHOOK_SECRET,
  type TestCoordinator,
} from '../test/helpers/app.js';
import type { Report } from './lib/report.js';
import { nowMs } from './lib/stats.js';

const OWNER = 'bench-org';
const REPO = `${OWNER}/stacks`;
const MAINTAINER = 'maintainer';

/** One "minute" of the model. */
const UNIT_MS = 200;

interface Delays {
  agent: number;
  ci: number;
  review: number;
}

/**
 * The agent's work, CI on each head, and a person's review of a PR (as long as the agent's work
 * or longer): review three times the agent's work, the proportion under which the chain's bound
 * reaches 2× (bench/README.md, benchmark 8).
 */
export const DELAYS: Delays = { agent: 10, ci: 3, review: 30 };
/** The same with review exactly as long as the agent's work (the issue's lower edge). */
const DELAYS_REVIEW_AS_AGENT: Delays = { ...DELAYS, review: DELAYS.agent };

const CHAIN_OF_FIVE = [
  '```tasks',
  ...[1, 2, 3, 4, 5].flatMap((i) => [
    `- id: t${i}`,
    `  title: Step ${i}`,
    ...(i > 1 ? [`  deps: [t${i - 1}]`] : []),
  ]),
  '```',
].join('\n');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Outcome {
  ms: number;
  tasks: number;
  contentWrites: number;
  /** Of those, the ones that create content (GitHub's hourly limit of 500, bench/lib/github-bound.ts). */
  contentCreations: number;
  mergeOrderOk: boolean;
  /** When each task was dispatched, had its PR opened and merged, in units since the label. */
  timeline: string;
  /** The coordinator's content writes by route. */
  writesByRoute: string;
}

type Pull = { number: number; state: string; head: { ref: string } };

async function runOnce(
  plan: string,
  deps: Record<string, string[]>,
  stack: boolean,
  delays: Delays,
  deleteBranchOnMerge = false,
): Promise<Outcome> {
  const double = await startGitHubDouble({
    webhookSecret: TEST_WEBHOOK_SECRET,
    appId: TEST_APP_ID,
  });
  let app: TestCoordinator | undefined;
  try {
    // GitHub's write limits per minute hold per "minute" of the model: scaled like the delays.
    // Probot's throttling plugin starts one write a second per installation whatever the budget
    // says (bench/README.md, "Caveats"), a second that is not scaled: the Octokit here has it off.
    app = await startTestCoordinator({
      githubBaseUrl: double.apiUrl,
      octokit: 'test',
      writeBudget: {
        limits: { ...GITHUB_WRITE_LIMITS, windowMs: UNIT_MS, longWindowMs: 60 * UNIT_MS },
      },
    });
    double.contentWritesWindowMs = UNIT_MS;
    double.setWebhookUrl(`${app.url}/api/github/webhooks`);
    const config = `dispatch:\n  stack: ${stack}\n`;
    await double.createRepo({
      owner: OWNER,
      name: 'stacks',
      private: true,
      files: { 'README.md': '# stacks\n', '.github/agent-coordinator.yml': config },
    });
    await double.setPermission(REPO, MAINTAINER, 'maintain');
    if (deleteBranchOnMerge) double.setDeleteBranchOnMerge(REPO, true);
    const repositoryId = (double.repository(REPO) as { id: number }).id;
    const coordinator = app;
    // The agent: its work takes `agent` units; the PR targets the assignment's base as the
    // publish job asks it again, or its `run_base` when that branch is gone (src/worker).
    double.setWorker(async (run) => {
      await assignmentOf(coordinator.store, repositoryId, run.inputs);
      await sleep(delays.agent * UNIT_MS);
      const again = await assignmentOf(coordinator.store, repositoryId, run.inputs);
      const base =
        again.base !== null && !double.branch(REPO, again.base) && again.run_base
          ? again.run_base
          : again.base;
      const task = run.inputs['task_id']!;
      return {
        kind: 'pr',
        ...(base !== null && { base }),
        files: { [`src/${task}.txt`]: `${task} attempt ${run.inputs['attempt']}\n` },
      };
    });
    double.pullRequestCi(REPO, [{ name: 'test', attempts: [{ conclusion: 'success' }] }]);
    const started = nowMs();
    const timers = new Set<Promise<void>>();
    const later = (ms: number, fn: () => Promise<void>) => {
      const t = sleep(ms)
        .then(fn)
        .catch(() => undefined);
      timers.add(t);
      void t.finally(() => timers.delete(t));
    };
    // CI: every held run on a PR head completes after `ci` units. Review: `/approve` `review`
    // units after the PR opened (a coordinator's update of the branch keeps the approval).
    const ciSeen = new Set<number>();
    const reviewed = new Set<number>();
    const timeline = new Map<string, number>();
    const mark = (what: string) => {
      if (!timeline.has(what))
        timeline.set(what, Math.round(((nowMs() - started) / UNIT_MS) * 10) / 10);
    };
    double.on('state-change', () => {
      for (const run of double.runs(REPO)) {
        const task = run.inputs['task_id'];
        if (task) mark(`${task}#${run.inputs['attempt']} dispatched`);
      }
      for (const pull of double.pulls(REPO) as Array<Pull & { merged_at: string | null }>) {
        const task = pull.head.ref.split('/')[2];
        mark(`${task} PR opened`);
        if (pull.merged_at) mark(`${task} merged`);
      }
      for (const run of double.runs(REPO)) {
        const id = run.id as number;
        if (ciSeen.has(id) || !double.ciHeld(id)) continue;
        ciSeen.add(id);
        later(delays.ci * UNIT_MS, () => double.releaseCi(id));
      }
      for (const pull of double.pulls(REPO) as Pull[]) {
        if (pull.state !== 'open' || reviewed.has(pull.number)) continue;
        reviewed.add(pull.number);
        later(delays.review * UNIT_MS, async () => {
          await double.comment(REPO, pull.number, '/approve', MAINTAINER);
        });
      }
    });
    const issue = await double.openIssue(REPO, { title: 'Bench', body: plan, user: MAINTAINER });
    await double.addLabel(REPO, issue, 'agent', MAINTAINER);
    const tasks = Object.keys(deps).length;
    await double.waitFor(
      (d) =>
        (d.pulls(REPO) as Array<{ merged_at: string | null }>).filter((p) => p.merged_at).length ===
        tasks,
      { timeoutMs: 600_000, description: 'every PR merged' },
    );
    const ms = nowMs() - started;
    await Promise.all([...timers]);
    await double.waitForDeliveries();
    await app.processor.whenDrained();
    return {
      ms,
      tasks,
      contentWrites: contentWritesOf(double) + tasks,
      contentCreations: contentCreationsOf(double) + tasks,
      mergeOrderOk: inDependencyOrder(double, deps),
      timeline: [...timeline].map(([what, at]) => `${at} ${what}`).join(', '),
      writesByRoute: writesByRouteOf(double),
    };
  } finally {
    await app?.close();
    await double.close();
  }
}

/** The coordinator's content-creating requests (the workers' PRs are added by the caller: one a task). */
function contentWritesOf(double: GitHubDouble): number {
  return double.requests.filter(
    (r) => r.route !== null && r.status < 300 && CONTENT_WRITES.has(r.route),
  ).length;
}

/** The coordinator's content creations (the workers' PRs are added by the caller). */
function contentCreationsOf(double: GitHubDouble): number {
  return double.requests.filter(
    (r) => r.route !== null && r.status < 300 && isContentCreation(r.route),
  ).length;
}

function writesByRouteOf(double: GitHubDouble): string {
  const counts = new Map<string, number>();
  for (const r of double.requests)
    if (r.route !== null && r.status < 300 && CONTENT_WRITES.has(r.route))
      counts.set(r.route, (counts.get(r.route) ?? 0) + 1);
  return [...counts]
    .map(([route, n]) => `${n} ${route.replace('/repos/{owner}/{repo}', '')}`)
    .join(', ');
}

function inDependencyOrder(double: GitHubDouble, deps: Record<string, string[]>): boolean {
  const order = double
    .deliveries({ event: 'pull_request', action: 'closed' })
    .map((d) => d.payload.pull_request as { merged: boolean; head: { ref: string } })
    .filter((p) => p.merged)
    .map((p) => p.head.ref.split('/')[2]!);
  return order.every((task, i) => (deps[task] ?? []).every((dep) => order.indexOf(dep) < i));
}

export async function runStack(report: Report, options: { quick: boolean }): Promise<void> {
  const delaysText = (d: Delays) => `agent ${d.agent}, CI ${d.ci}, review ${d.review} units`;
  report.note(
    `stack: one unit = ${UNIT_MS} ms (scaled real delays: the double has no clock); ${delaysText(DELAYS)}`,
  );
  const chainDeps = { t1: [], t2: ['t1'], t3: ['t2'], t4: ['t3'], t5: ['t4'] };
  const diamondDeps = {
    task_001: [],
    task_002: ['task_001'],
    task_003: ['task_001'],
    task_004: ['task_002', 'task_003'],
  };
  const rounds = options.quick ? 1 : 2;
  const measure = async (
    name: string,
    plan: string,
    deps: Record<string, string[]>,
    delays: Delays,
    deleteBranchOnMerge = false,
  ) => {
    const totals = { off: 0, on: 0, writesOff: 0, writesOn: 0, creationsOff: 0, creationsOn: 0 };
    for (let round = 0; round < rounds; round++) {
      for (const stack of [false, true]) {
        const o = await runOnce(`Bench.\n\n${plan}`, deps, stack, delays, deleteBranchOnMerge);
        if (!o.mergeOrderOk) throw new Error(`${name}: a merge out of dependency order`);
        report.note(
          `stack ${name} ${stack ? 'on ' : 'off'}: ${(o.ms / 1000).toFixed(1)} s (${(o.ms / UNIT_MS).toFixed(0)} units), ${o.contentWrites} content writes (${o.contentCreations} creations) for ${o.tasks} tasks (coordinator: ${o.writesByRoute}); ${o.timeline}`,
        );
        if (stack) {
          totals.on += o.ms;
          totals.writesOn += o.contentWrites;
          totals.creationsOn += o.contentCreations;
        } else {
          totals.off += o.ms;
          totals.writesOff += o.contentWrites;
          totals.creationsOff += o.contentCreations;
        }
      }
    }
    return totals;
  };
  const chain = await measure('chain of five', CHAIN_OF_FIVE, chainDeps, DELAYS);
  const diamond = await measure('diamond', SPEC_EXAMPLE_PLAN, diamondDeps, DELAYS);
  report.figure('stack_chain_speedup', chain.off / chain.on, 'ratio');
  report.figure('stack_diamond_ratio', diamond.off / diamond.on, 'ratio');
  report.figure(
    'stack_writes_per_task_ratio',
    (chain.writesOn + diamond.writesOn) / (chain.writesOff + diamond.writesOff),
    'ratio',
  );
  // The hourly limit counts creations only: PRs, comments, reviews (bench/README.md, benchmark 6).
  report.figure(
    'stack_content_creations_per_task_ratio',
    (chain.creationsOn + diamond.creationsOn) / (chain.creationsOff + diamond.creationsOff),
    'ratio',
  );
  report.note(`stack, review as long as the agent's work: ${delaysText(DELAYS_REVIEW_AS_AGENT)}`);
  const even = await measure(
    'chain of five, review = agent',
    CHAIN_OF_FIVE,
    chainDeps,
    DELAYS_REVIEW_AS_AGENT,
  );
  report.figure('stack_chain_speedup_review_as_agent', even.off / even.on, 'ratio');
  // GitHub's own retargeting (delete_branch_on_merge, the setting its docs recommend for
  // stacked PRs): the coordinator sends no base PATCH for a child whose parent merged.
  report.note('stack, delete_branch_on_merge on');
  const chainDeleting = await measure(
    'chain of five, delete_branch_on_merge',
    CHAIN_OF_FIVE,
    chainDeps,
    DELAYS,
    true,
  );
  const diamondDeleting = await measure(
    'diamond, delete_branch_on_merge',
    SPEC_EXAMPLE_PLAN,
    diamondDeps,
    DELAYS,
    true,
  );
  report.figure(
    'stack_writes_per_task_ratio_delete_branch_on_merge',
    (chainDeleting.writesOn + diamondDeleting.writesOn) /
      (chainDeleting.writesOff + diamondDeleting.writesOff),
    'ratio',
  );
}
