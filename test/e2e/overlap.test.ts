import { afterEach, describe, expect, it } from 'vitest';
import type { WorkerOutcome, WorkerPolicy } from '../github-double/worker/outcomes.js';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  startScenario,
  statusComment,
  taskOf,
  type Scenario,
} from './harness.js';

type Pull = {
  number: number;
  state: string;
  head: { ref: string; sha: string };
};

const FILES = {
  'src/login/session.ts': 'export const session = 1;\n',
  'src/login/form.ts': 'export const form = 1;\n',
  'src/api/index.ts': 'export const api = 1;\n',
};

/** Every event the App subscribes to but pull_request: no PR's opening or push is delivered. */
const WITHOUT_PULL_REQUEST = [
  'issues',
  'issue_comment',
  'pull_request_review',
  'check_run',
  'check_suite',
  'status',
  'workflow_run',
  'workflow_job',
  'merge_group',
];

const plan = (tasks: Array<{ id: string; files?: string; priority?: number }>) =>
  [
    '```tasks',
    ...tasks.flatMap((t) => [
      `- id: ${t.id}`,
      `  title: Task ${t.id}`,
      ...(t.files ? [`  files: ${t.files}`] : []),
      ...(t.priority ? [`  priority: ${t.priority}`] : []),
    ]),
    '```',
  ].join('\n');

/**
 * A worker that writes the given files for each task; in mode=fix (sent back after a merge
 * conflict) it takes the base's version of those files, which resolves the conflict.
 */
function writes(s: () => Scenario, byTask: Record<string, string[]>): WorkerPolicy {
  return (run) => {
    const task = run.inputs.task_id!;
    const paths = byTask[task] ?? [];
    const fix = run.inputs.mode === 'fix';
    return {
      kind: 'pr',
      files: Object.fromEntries(
        paths.map((p) => [
          p,
          fix
            ? (s().double.file(REPO, 'main', p) ?? '')
            : `// ${task}\n${FILES[p as keyof typeof FILES] ?? ''}`,
        ]),
      ),
    };
  };
}

/** Conflict-aware scheduling: tasks whose files overlap are never in flight together. */
describe('overlapping files (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const pulls = () => s.double.pulls(REPO) as Pull[];
  const prOf = (task: string) => pulls().find((p) => p.head.ref.endsWith(`/${task}`));
  // The worker runs: a CI run has no task.
  const dispatched = () => s.double.runs(REPO).flatMap((r) => r.inputs.task_id ?? []);
  const fixRuns = () => s.double.runs(REPO).filter((r) => r.inputs.mode === 'fix');
  const start = async (body: string) => {
    const issue = await s.double.openIssue(REPO, { title: 'Login', body, user: MAINTAINER });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    return issue;
  };
  const approve = async (task: string) => {
    // A person reviews the head first: GitHub dates the comment a second after its push.
    s.double.advanceClock(1_000);
    await s.double.comment(REPO, prOf(task)!.number, '/approve', MAINTAINER);
    await s.settle();
  };

  it('holds a task whose files overlap one in flight until that one merges, and says why', async () => {
    s = await startScenario({ files: FILES });
    s.double.setWorker(
      writes(() => s, {
        a: ['src/login/session.ts'],
        b: ['src/login/session.ts'],
        c: ['src/api/index.ts'],
      }),
    );
    const issue = await start(
      plan([
        { id: 'a', files: '[src/login/**]' },
        { id: 'b', files: '[src/login/session.ts]' },
        { id: 'c', files: '[src/api/**]' },
      ]),
    );
    // a and c go; b overlaps a on a file the tree has (a's real file, once its PR is open).
    expect(dispatched().sort()).toEqual(['a', 'c']);
    expect((await taskOf(s, issue, 'b'))?.state).toBe('pending');
    expect(statusComment(s.double, issue)).toContain('waiting: overlaps a on src/login/session.ts');
    // The tree was read once for the base head, whatever the passes.
    const trees = () => s.double.requests.filter((r) => r.path.includes('/git/trees/'));
    expect(trees()).toHaveLength(1);

    // c merging changes nothing for b; a merging frees it, from the new base: no conflict.
    await approve('c');
    expect(dispatched().sort()).toEqual(['a', 'c']);
    await approve('a');
    expect((await taskOf(s, issue, 'a'))?.state).toBe('merged');
    expect(dispatched().sort()).toEqual(['a', 'b', 'c']);
    expect(statusComment(s.double, issue)).not.toContain('overlaps');
    await approve('b');
    expect((await taskOf(s, issue, 'b'))?.state).toBe('merged');
    expect(fixRuns()).toEqual([]);
    // A tree per base head the decisions needed (the first, then after a's merge).
    expect(trees().length).toBeLessThanOrEqual(3);
  });

  it('replaces a declaration by the PR’s real files, and says when they leave the declaration', async () => {
    s = await startScenario({ files: FILES });
    s.double.setWorker(writes(() => s, { a: ['src/api/index.ts'], b: ['src/login/form.ts'] }));
    const issue = await start(
      plan([
        { id: 'a', files: '[src/login/**]', priority: 5 },
        { id: 'b', files: '[src/login/form.ts]' },
      ]),
    );
    // a declared src/login/** but changed only src/api/index.ts: its real files decide, so b,
    // which waited on its declaration, goes while a's PR is still open.
    expect((await taskOf(s, issue, 'a'))?.changedFiles).toEqual(['src/api/index.ts']);
    expect((await taskOf(s, issue, 'a'))?.state).toBe('in_review');
    expect(dispatched().sort()).toEqual(['a', 'b']);
    const status = statusComment(s.double, issue);
    expect(status).toMatch(/a changed files outside its `files:`: .*src\/api\/index\.ts/);
    expect(status).not.toMatch(/b changed files outside/);
    // The wait on the declaration happened: b's first dispatch came after a's PR opened.
    const requests = s.double.requests.map((r) => `${r.method} ${r.path}`);
    const aFiles = requests.findIndex((r) => r.endsWith(`/pulls/${prOf('a')!.number}/files`));
    const dispatches = requests
      .map((r, i) => ({ r, i }))
      .filter(({ r }) => r.startsWith('POST') && r.endsWith('/dispatches'));
    expect(dispatches).toHaveLength(2);
    expect(dispatches[1]!.i).toBeGreaterThan(aFiles);
  });

  it('reads the real files from the sweep when the PR’s opening was not delivered', async () => {
    // Every event but pull_request: the worker's run completing links the PR, nothing reads its files.
    s = await startScenario({ files: FILES, subscribedEvents: WITHOUT_PULL_REQUEST });
    s.double.setWorker(writes(() => s, { a: ['src/api/index.ts'], b: ['src/login/form.ts'] }));
    const issue = await start(
      plan([
        { id: 'a', files: '[src/login/**]', priority: 5 },
        { id: 'b', files: '[src/login/form.ts]' },
      ]),
    );
    expect((await taskOf(s, issue, 'a'))?.state).toBe('in_review');
    expect((await taskOf(s, issue, 'a'))?.changedFiles).toBeNull();
    expect(dispatched()).toEqual(['a']);
    const filesRead = () =>
      s.double.requests.filter((r) => r.path.endsWith(`/pulls/${prOf('a')!.number}/files`));
    expect(filesRead()).toHaveLength(0);

    await s.app.sweep();
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.changedFiles).toEqual(['src/api/index.ts']);
    expect(dispatched().sort()).toEqual(['a', 'b']);
    expect(statusComment(s.double, issue)).toMatch(/a changed files outside its `files:`/);
    // Read once: the next sweep finds them recorded.
    await s.app.sweep();
    await s.settle();
    expect(filesRead()).toHaveLength(1);
  });

  it('reads the files again from the sweep when a push was not delivered, at the new head', async () => {
    // No pull_request deliveries: neither the PR's opening nor the fix's push is seen; the
    // worker's completions record its PR and each new head.
    s = await startScenario({ files: FILES, subscribedEvents: WITHOUT_PULL_REQUEST });
    // a first changes the file b declares; its fix takes that change back and changes the API.
    s.double.setWorker((run): WorkerOutcome => {
      const task = run.inputs.task_id!;
      if (task !== 'a') return { kind: 'pr', files: { 'src/login/form.ts': '// b\n' } };
      if (run.inputs.mode !== 'fix')
        return { kind: 'pr', files: { 'src/login/session.ts': '// a\n' } };
      return {
        kind: 'pr',
        files: {
          'src/login/session.ts': FILES['src/login/session.ts'],
          'src/api/index.ts': '// a, fixed\n',
        },
      };
    });
    const issue = await start(
      plan([
        { id: 'a', files: '[src/login/**]', priority: 5 },
        { id: 'b', files: '[src/login/session.ts]' },
      ]),
    );
    const filesRead = () =>
      s.double.requests.filter((r) => r.path.endsWith(`/pulls/${prOf('a')!.number}/files`));
    await s.app.sweep();
    await s.settle();
    const first = prOf('a')!.head.sha;
    expect(await taskOf(s, issue, 'a')).toMatchObject({
      changedFiles: ['src/login/session.ts'],
      changedFilesHead: first,
    });
    expect(dispatched()).toEqual(['a']);
    expect(statusComment(s.double, issue)).toContain('waiting: overlaps a on src/login/session.ts');

    // Sent back; the fix's push is not delivered, its completion records the new head.
    await s.double.review(REPO, prOf('a')!.number, { event: 'REQUEST_CHANGES', by: MAINTAINER });
    await s.settle();
    expect(fixRuns().map((r) => r.inputs.task_id)).toEqual(['a']);
    const fixed = prOf('a')!.head.sha;
    expect(fixed).not.toBe(first);
    expect((await taskOf(s, issue, 'a'))?.state).toBe('in_review');
    // Until the sweep, the files of the first head decide: b still waits.
    expect((await taskOf(s, issue, 'a'))?.changedFilesHead).toBe(first);
    expect(dispatched()).not.toContain('b');
    expect(filesRead()).toHaveLength(1);

    await s.app.sweep();
    await s.settle();
    expect(await taskOf(s, issue, 'a')).toMatchObject({
      changedFiles: ['src/api/index.ts'],
      changedFilesHead: fixed,
    });
    expect(dispatched()).toContain('b');
    expect(statusComment(s.double, issue)).not.toContain('overlaps a');
    // Read once for the new head: the next sweep finds them current.
    await s.app.sweep();
    await s.settle();
    expect(filesRead()).toHaveLength(2);
  });

  it('reads the files again when a check names the PR at a head whose push was not delivered', async () => {
    s = await startScenario({ files: FILES });
    s.double.setWorker(
      writes(() => s, { a: ['src/login/session.ts'], b: ['src/login/session.ts'] }),
    );
    const issue = await start(
      plan([
        { id: 'a', files: '[src/login/**]', priority: 5 },
        { id: 'b', files: '[src/login/session.ts]' },
      ]),
    );
    const filesRead = () =>
      s.double.requests.filter((r) => r.path.endsWith(`/pulls/${prOf('a')!.number}/files`));
    const first = prOf('a')!.head.sha;
    expect(await taskOf(s, issue, 'a')).toMatchObject({
      state: 'in_review',
      changedFiles: ['src/login/session.ts'],
      changedFilesHead: first,
    });
    expect(dispatched()).toEqual(['a']);

    // A check result naming the PR at a head GitHub does not show moves nothing: the PR is read
    // by number, and GitHub's head is the one recorded. (Its template: another CI service's
    // completed suite on the head; the order check's waits for /approve.)
    await s.double.setCheck(REPO, first, 'lint', 'completed', 'success');
    await s.settle();
    const suite = s.double
      .deliveries({ event: 'check_suite', action: 'completed' })
      .find((d) => (d.payload.check_suite as { head_sha: string }).head_sha === first)!;
    const forged = structuredClone(suite.payload) as {
      check_suite: { app: { id: number }; pull_requests: Array<{ head: { sha: string } }> };
    };
    forged.check_suite.app.id += 1;
    forged.check_suite.pull_requests[0]!.head.sha = 'f'.repeat(40);
    const reads = () =>
      s.double.requests.filter(
        (r) => r.method === 'GET' && r.path.endsWith(`/pulls/${prOf('a')!.number}`),
      );
    const readsBefore = reads().length;
    expect((await s.app.send('check_suite', forged)).ok).toBe(true);
    await s.settle();
    expect(reads().length).toBe(readsBefore + 1);
    expect((await taskOf(s, issue, 'a'))?.changedFilesHead).toBe(first);
    expect(filesRead()).toHaveLength(1);

    // A maintainer's fix-up takes session.ts back and changes the API instead; GitHub cannot
    // reach the app while it is pushed, so its `pull_request.synchronize` is lost.
    s.double.webhooksDown = true;
    const fixed = await s.double.pushCommit(REPO, prOf('a')!.head.ref, {
      message: 'Fix-up',
      files: {
        'src/login/session.ts': FILES['src/login/session.ts'],
        'src/api/index.ts': '// a\n',
      },
      by: MAINTAINER,
    });
    s.double.webhooksDown = false;
    await s.settle();
    // Until the sweep, nothing the app reads names the new head: the first head's files hold b.
    expect((await taskOf(s, issue, 'a'))?.changedFilesHead).toBe(first);
    expect(dispatched()).toEqual(['a']);

    // CI runs on the new head: its check deliveries name the PR at that head.
    await s.double.runCi(REPO, fixed, {
      jobs: [{ name: 'test', attempts: [{ conclusion: 'success' }] }],
    });
    await s.settle();
    expect(await taskOf(s, issue, 'a')).toMatchObject({
      changedFiles: ['src/api/index.ts'],
      changedFilesHead: fixed,
    });
    expect(dispatched().sort()).toEqual(['a', 'b']);
    expect(statusComment(s.double, issue)).not.toContain('overlaps a');
    expect(filesRead()).toHaveLength(2);

    // The push's delivery, redelivered late, reads nothing again.
    const push = s.double.deliveries({ event: 'pull_request', action: 'synchronize' }).at(-1)!;
    expect(push.payload.after).toBe(fixed);
    expect((await s.app.send(push.event, push.payload, { id: push.guid })).ok).toBe(true);
    await s.settle();
    expect(filesRead()).toHaveLength(2);
    expect((await taskOf(s, issue, 'a'))?.changedFilesHead).toBe(fixed);
  });

  it('without files: both run at once and the second is sent back with a conflict', async () => {
    s = await startScenario({ files: FILES });
    s.double.setWorker(
      writes(() => s, { a: ['src/login/session.ts'], b: ['src/login/session.ts'] }),
    );
    const issue = await start(plan([{ id: 'a' }, { id: 'b' }]));
    expect(dispatched().sort()).toEqual(['a', 'b']);
    await approve('a');
    await approve('b');
    expect(fixRuns().map((r) => r.inputs.task_id)).toEqual(['b']);
    await approve('b');
    expect((await taskOf(s, issue, 'b'))?.state).toBe('merged');
  });
});
