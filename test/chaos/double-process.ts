/**
 * GitHub doubles in a process of their own, for the crash test: the coordinator is killed and
 * restarted around its double while the double (and its simulated workers) go on. One process
 * serves every scenario of a test file, a double (own port, own state) per scenario. Started by
 * `child_process.fork` with `--import tsx`; controlled over the IPC channel with
 * `{ id, double, method, params }` requests answered by `{ id, ok, result | error }`.
 */
import { startGitHubDouble, type GitHubDouble, type WorkerPolicy } from '../github-double/index.js';
import {
  MAINTAINER,
  OWNER,
  REPO,
  REPO_NAME,
  SPEC_EXAMPLE_PLAN,
  REPO_CONFIG,
  STACK_CONFIG,
  STATUS_MARKER,
  type StackPlay,
  DONE_LABEL,
  DONE_STATUS,
  type DoubleReport,
  type DoubleRequest,
} from './shared.js';

const doubles = new Map<number, GitHubDouble>();
let nextDouble = 1;

/** Plans with the docs/tasks-block.md example; every task attempt opens its PR and succeeds. */
const worker: WorkerPolicy = (run) =>
  run.inputs['mode'] === 'plan'
    ? { kind: 'plan', tasksBlock: SPEC_EXAMPLE_PLAN }
    : { kind: 'pr', costUsd: 0.5 };

/**
 * With the `veto` play, task_002 and task_003 start over (attempt 2, `mode=work`) stacked anew on
 * task_001's fix: their assignment's base is task_001's branch, which the real worker asks the
 * coordinator for and starts from (the simulated worker knows only a first attempt's stack).
 */
const vetoWorker: WorkerPolicy = (run, ctx) => {
  const { task_id: task, attempt, issue } = run.inputs;
  const restacked = (task === 'task_002' || task === 'task_003') && attempt === '2';
  return restacked
    ? { kind: 'pr', costUsd: 0.5, base: `agent/${issue}/task_001` }
    : worker(run, ctx);
};

async function handle(id: number | undefined, request: DoubleRequest): Promise<unknown> {
  const started = (): GitHubDouble => {
    const double = id === undefined ? undefined : doubles.get(id);
    if (!double) throw new Error(`no double ${id}`);
    return double;
  };
  switch (request.method) {
    case 'start': {
      const { webhookSecret, appId, webhookUrl, missedEvents = [] } = request.params;
      const double = await startGitHubDouble({
        webhookSecret,
        appId,
        webhookUrl,
        subscribedEvents: missedEvents.length > 0 ? subscribedExcept(missedEvents) : undefined,
      });
      await double.createRepo({
        owner: OWNER,
        name: REPO_NAME,
        files: {
          '.github/agent-coordinator.yml': request.params.stack ? STACK_CONFIG : REPO_CONFIG,
        },
      });
      await double.setPermission(REPO, MAINTAINER, 'maintain');
      double.setWorker(request.params.stack === 'veto' ? vetoWorker : worker);
      if (request.params.stack) playMaintainer(double, request.params.stack);
      if (request.params.mergeQueue) await runMergeQueue(double);
      const started = nextDouble++;
      doubles.set(started, double);
      return { double: started, gheHost: double.gheHost };
    }
    case 'openLabelledIssue': {
      const d = started();
      // With `files`, task_002 declares `files: [src/login/**]` as docs/tasks-block.md shows it.
      const plan = request.params.files
        ? SPEC_EXAMPLE_PLAN.replace(
            '  timeoutMinutes: 15',
            '  timeoutMinutes: 15\n  files: [src/login/**]',
          )
        : SPEC_EXAMPLE_PLAN;
      const body = request.params.withPlan
        ? `Add login.\n\n${plan}`
        : 'Add login: an API signature, its implementation, unit and integration tests.';
      const issue = await d.openIssue(REPO, { title: 'Login', body, user: MAINTAINER });
      await d.addLabel(REPO, issue, 'agent', MAINTAINER);
      if (request.params.command) await d.comment(REPO, issue, request.params.command, MAINTAINER);
      return issue;
    }
    case 'waitForRunDone': {
      // Closed, labelled, and the status comment says so (it is written last).
      const { issue, timeoutMs } = request.params;
      const d = started();
      await d.waitFor(
        (x) =>
          (x.issue(REPO, issue) as { state: string }).state === 'closed' &&
          x.labels(REPO, issue).includes(DONE_LABEL) &&
          (x.comments(REPO, issue) as Array<{ body: string }>).some(
            (c) => c.body.includes(STATUS_MARKER) && c.body.includes(DONE_STATUS),
          ),
        { timeoutMs, description: `issue #${issue} done: closed, labelled, final status` },
      );
      return true;
    }
    case 'settle': {
      // Until no webhook is in flight and no simulated worker is busy.
      const d = started();
      for (let round = 0; round < 100; round++) {
        const before = d.deliveries().length;
        await d.waitForWorkers();
        await d.waitForDeliveries();
        if (d.deliveries().length === before) return true;
      }
      throw new Error('the double never went quiet');
    }
    case 'report':
      return report(started(), request.params.issue);
    case 'close':
      await doubles.get(id ?? 0)?.close();
      doubles.delete(id ?? 0);
      return true;
  }
}

/**
 * The default branch gets a merge queue, and GitHub's side of it runs by itself: whatever is
 * enqueued is grouped and lands (no required checks), whether the coordinator is up or not.
 */
async function runMergeQueue(double: GitHubDouble): Promise<void> {
  await double.enableMergeQueue(REPO, 'main');
  let turn = Promise.resolve();
  double.on('state-change', ({ kind, detail }) => {
    if (kind !== 'merge-queue' || !(detail as { enqueued?: number }).enqueued) return;
    turn = turn
      .then(async () => {
        // Each group takes at least one entry off the queue.
        for (let round = 0; round < 100; round++) {
          if ((double.mergeQueue(REPO, 'main') ?? []).length === 0) return;
          await double.processMergeQueue(REPO, 'main');
        }
      })
      .catch((error: unknown) => {
        problemsOf(double).push(`[merge-queue] ${String(error)}`);
      });
  });
}

/**
 * The maintainer of a `dispatch.stack` scenario, acting on what GitHub shows (whether the
 * coordinator is up or not): once task_002 and task_003 are stacked on task_001's PR, a review
 * round on task_001 (`review`), a `/veto` of it and then a `/retry` (`veto`), or a workflow file
 * pushed to its branch and, once each child's PR says GitHub refused the App its update, task_001's
 * branch merged into the child's (`workflow`), or task_001's branch rewritten, its first head
 * dropped (`rewrite`); then `/approve` on every PR as it reaches the state the play waits for.
 */
function playMaintainer(double: GitHubDouble, play: StackPlay): void {
  type Pr = {
    number: number;
    state: string;
    head: { ref: string; sha: string };
    base: { ref: string };
  };
  const prOf = (task: string) =>
    (double.pulls(REPO) as Pr[]).find((p) => p.state === 'open' && p.head.ref.endsWith(`/${task}`));
  const stackedOn = (task: string, parent: string) =>
    prOf(task)?.base.ref.endsWith(`/${parent}`) === true;
  const children = ['task_002', 'task_003'];
  const wait = (description: string, predicate: () => boolean) =>
    double.waitFor(() => predicate() || undefined, { timeoutMs: 180_000, description });
  const comment = (task: string, body: string) => {
    // The maintainer reads the head first: GitHub dates the comment a second after its push.
    double.advanceClock(1_000);
    return double.comment(REPO, prOf(task)!.number, body, MAINTAINER);
  };
  const attemptDone = (task: string, attempt: string) =>
    double
      .runs(REPO)
      .some(
        (r) =>
          r.inputs['task_id'] === task &&
          r.inputs['attempt'] === attempt &&
          r.status === 'completed',
      );
  const review = async () => {
    const first = prOf('task_001')!.head.sha;
    await double.review(REPO, prOf('task_001')!.number, {
      event: 'REQUEST_CHANGES',
      body: 'Rename it.',
      by: MAINTAINER,
    });
    await wait('task_002 and task_003 restacked on task_001’s fix', () => {
      const head = prOf('task_001')?.head.sha;
      return (
        head !== undefined &&
        head !== first &&
        attemptDone('task_001', '2') &&
        children.every((t) => double.isAncestor(REPO, head, prOf(t)?.head.sha ?? ''))
      );
    });
  };
  const veto = async () => {
    await comment('task_001', '/veto not this way');
    await wait('task_002 and task_003 cancelled, their PRs pointed at main', () =>
      children.every((t) => prOf(t)?.base.ref === 'main'),
    );
    await comment('task_001', '/retry do it the other way');
    await wait('task_002 and task_003 stacked again on task_001’s fix', () => {
      const head = prOf('task_001')?.head.sha;
      return (
        head !== undefined &&
        attemptDone('task_001', '2') &&
        children.every(
          (t) =>
            attemptDone(t, '2') &&
            stackedOn(t, 'task_001') &&
            double.isAncestor(REPO, head, prOf(t)?.head.sha ?? ''),
        )
      );
    });
  };
  const workflow = async () => {
    const parent = prOf('task_001')!.head.ref;
    await double.pushCommit(REPO, parent, {
      message: 'Add lint',
      files: { '.github/workflows/lint.yml': 'on: push\n' },
      by: MAINTAINER,
    });
    const told = (task: string) =>
      (double.comments(REPO, prOf(task)?.number ?? 0) as Array<{ body: string }>).filter((c) =>
        c.body.startsWith('<!-- agent-coordinator:update-refused '),
      ).length;
    await wait('task_002 and task_003 told GitHub refused their updates', () =>
      children.every((t) => told(t) > 0),
    );
    for (const task of children) {
      // Told once, whether or not the coordinator was killed before it recorded the refusal.
      if (told(task) !== 1)
        problemsOf(double).push(`[maintainer] ${task} told ${told(task)} times`);
      await double.mergeInto(REPO, prOf(task)!.head.ref, parent, MAINTAINER);
    }
  };
  const rewrite = async () => {
    const first = prOf('task_001')!.head.sha;
    await double.pushCommit(REPO, prOf('task_001')!.head.ref, {
      message: 'Start over',
      files: { 'src/task_001-again.txt': 'again\n' },
      parent: double.branch(REPO, 'main')!.sha,
      by: MAINTAINER,
    });
    const told = (task: string) =>
      (double.comments(REPO, prOf(task)?.number ?? 0) as Array<{ body: string }>).filter((c) =>
        c.body.startsWith('<!-- agent-coordinator:parent-rewritten '),
      ).length;
    const head = prOf('task_001')!.head.sha;
    await wait('task_002 and task_003 told, and brought up to date with the rewritten branch', () =>
      children.every(
        (t) =>
          told(t) > 0 &&
          double.isAncestor(REPO, head, prOf(t)?.head.sha ?? '') &&
          double.isAncestor(REPO, first, prOf(t)?.head.sha ?? ''),
      ),
    );
    for (const task of children)
      if (told(task) !== 1)
        problemsOf(double).push(`[maintainer] ${task} told ${told(task)} times`);
  };
  const plays = { review, workflow, rewrite };
  void (async () => {
    await wait('task_002 and task_003 stacked on task_001', () =>
      children.every((t) => stackedOn(t, 'task_001')),
    );
    if (play !== 'veto') {
      await plays[play]();
      for (const task of ['task_001', ...children]) await comment(task, '/approve');
    } else {
      await veto();
      // task_003 waits for task_004 to open on it, so task_004 stacks on an open PR (a worker
      // that asks for its assignment would find the same), then follows it to main.
      for (const task of ['task_001', 'task_002']) await comment(task, '/approve');
      await wait('task_004 opened', () => prOf('task_004') !== undefined);
      await comment('task_003', '/approve');
    }
    await wait('task_004 opened', () => prOf('task_004') !== undefined);
    await comment('task_004', '/approve');
  })().catch((error: unknown) => problemsOf(double).push(`[maintainer] ${String(error)}`));
}

/** What went wrong on the double's side outside a request (reported with the run). */
const problems = new WeakMap<GitHubDouble, string[]>();
function problemsOf(double: GitHubDouble): string[] {
  let list = problems.get(double);
  if (!list) problems.set(double, (list = []));
  return list;
}

/** The App's subscription (docs/running.md, app.yml) minus some events. */
function subscribedExcept(missed: string[]): string[] {
  const all = [
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
  return all.filter((event) => !missed.includes(event));
}

function report(d: GitHubDouble, issue: number): DoubleReport {
  const json = d.issue(REPO, issue) as { state: string };
  const runs = d.runs(REPO).map((r) => ({
    id: r.id as number,
    task: r.inputs['task_id'] ?? '',
    attempt: r.inputs['attempt'] ?? '',
    mode: r.inputs['mode'] ?? '',
    status: r.status as string,
    conclusion: r.conclusion as string | null,
  }));
  const pulls = (
    d.pulls(REPO) as Array<{
      number: number;
      state: string;
      merged_at: string | null;
      head: { ref: string };
    }>
  ).map((p) => ({
    number: p.number,
    task: p.head.ref.split('/')[2] ?? p.head.ref,
    state: p.state,
    merged: p.merged_at !== null,
  }));
  const merges: Record<number, number> = {};
  for (const r of d.requests) {
    const m = /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)\/merge$/.exec(r.path);
    if (r.method === 'PUT' && m && r.status === 200)
      merges[Number(m[1])] = (merges[Number(m[1])] ?? 0) + 1;
  }
  const all = d.deliveries();
  const mergeOrder = all
    .filter((x) => x.event === 'pull_request' && x.action === 'closed' && !x.redelivery)
    .map((x) => x.payload.pull_request as { merged: boolean; head: { ref: string } })
    .filter((pr) => pr.merged)
    .map((pr) => pr.head.ref.split('/')[2] ?? pr.head.ref);
  const ok = (code: number | null) => code !== null && code >= 200 && code < 300;
  const failedGuids = [...new Set(all.filter((x) => !ok(x.statusCode)).map((x) => x.guid))];
  const deliveredGuids = new Set(all.filter((x) => ok(x.statusCode)).map((x) => x.guid));
  const statusComments = (d.comments(REPO, issue) as Array<{ body: string }>)
    .map((c) => c.body)
    .filter((body) => body.includes(STATUS_MARKER));
  return {
    issue: { state: json.state, labels: d.labels(REPO, issue) },
    runs,
    pulls,
    merges,
    mergeOrder,
    statusComments,
    deliveries: {
      total: all.length,
      failedGuids,
      neverDeliveredGuids: failedGuids.filter((g) => !deliveredGuids.has(g)),
      redeliveries: all.filter((x) => x.redelivery).length,
    },
    problems: [
      ...d.violations.map((v) => `[${v.kind}] ${v.method} ${v.path}: ${v.message}`),
      ...d.workerErrors.map((e) => `[worker-error] ${e.message}`),
      ...d.selfCheckErrors.map((e) => `[self-check] ${e}`),
      ...problemsOf(d),
    ],
  };
}

process.on('message', (message: { id: number; double?: number } & DoubleRequest) => {
  handle(message.double, message).then(
    (result) => process.send?.({ id: message.id, ok: true, result }),
    (error: unknown) =>
      process.send?.({
        id: message.id,
        ok: false,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
  );
});
// The test runner going away takes the doubles with it.
process.on('disconnect', () => {
  void Promise.all([...doubles.values()].map((d) => d.close())).finally(() => process.exit(0));
});
process.send?.({ ready: true });
