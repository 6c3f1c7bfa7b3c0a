import { afterEach, describe, expect, it } from 'vitest';
import {
  assignmentFor,
  closeScenario,
  MAINTAINER,
  REPO,
  SPEC_EXAMPLE_PLAN,
  CHAIN_OF_TWO,
  startStackedRun,
  startScenario,
  branchUpdateAnswers,
  updateRefusedComments,
  statusComment,
  taskOf,
  type Scenario,
} from './harness.js';

type Pull = {
  number: number;
  state: string;
  merged?: boolean;
  head: { ref: string; sha: string };
  base: { ref: string };
};

const STACK_CONFIG = 'dispatch:\n  stack: true\n';
const CHAIN = CHAIN_OF_TWO;

/**
 * docs/stacking.md on the GitHub double: with `dispatch.stack`, a task whose one unmerged
 * dependency has an open PR with green checks starts on that PR's head, and follows it: brought
 * up to date when it moves, retargeted when it merges, cancelled when it is vetoed.
 */
describe('stacked dispatch (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const pulls = () => s.double.pulls(REPO) as Pull[];
  const prOf = (task: string) => pulls().find((p) => p.head.ref.endsWith(`/${task}`))!;
  const branchOf = (issue: number, task: string) => `agent/${issue}/${task}`;
  const orderTitle = (sha: string) =>
    (
      s.double.checkRuns(REPO, sha) as Array<{
        name: string;
        status: string;
        output: { title: string };
      }>
    )
      .filter((c) => c.name === 'agent-coordinator/order')
      .map((c) => `${c.status}: ${c.output.title}`);
  const mergedOrder = () =>
    s.double
      .deliveries({ event: 'pull_request', action: 'closed' })
      .filter((d) => (d.payload.pull_request as { merged: boolean }).merged)
      .map((d) => (d.payload.pull_request as { head: { ref: string } }).head.ref.split('/')[2]);
  const approve = async (task: string) => {
    // A person reviews the head first: GitHub dates the comment a second after its push.
    s.double.advanceClock(1_000);
    await s.double.comment(REPO, prOf(task).number, '/approve', MAINTAINER);
    await s.settle();
  };

  const start = async (body: string, options: { deleteBranchOnMerge?: boolean } = {}) => {
    const started = await startStackedRun(body, options);
    s = started.s;
    return started.issue;
  };

  it('starts a task on its dependency’s open PR, shows only its own change, and retargets it to the base when the dependency merges', async () => {
    const issue = await start(CHAIN);
    const a = prOf('a');
    const b = prOf('b');
    // b started on a's head before a merged, and its PR targets a's branch.
    expect(b.base.ref).toBe(branchOf(issue, 'a'));
    expect(s.double.isAncestor(REPO, a.head.sha, b.head.sha)).toBe(true);
    expect(s.double.pullDiff(REPO, b.number)).toEqual({ 'src/b.txt': 'b attempt 1\n' });
    expect(orderTitle(b.head.sha)).toEqual([`in_progress: stacked on a (#${a.number})`]);
    // The status comment's waiting text never links (a word joiner after `#`); its PR column does.
    expect(statusComment(s.double, issue)).toContain(
      `| b | B | a | in_review: stacked on a (#\u2060${a.number}) | 1 | #${b.number} |`,
    );
    expect((await taskOf(s, issue, 'b'))?.stackParent).toBe('a');

    // b approved first: the order check still holds it until a has merged.
    await approve('b');
    expect(mergedOrder()).toEqual([]);
    await approve('a');
    expect(mergedOrder()).toEqual(['a', 'b']);
    const merged = s.double.pull(REPO, b.number) as Pull;
    expect(merged.base.ref).toBe('main');
    expect((s.double.issue(REPO, issue) as { state: string }).state).toBe('closed');
  });

  it('retargets and updates the child when the parent merges, and its diff is its own change again', async () => {
    const issue = await start(CHAIN);
    const b = prOf('b');
    await approve('a');
    const after = s.double.pull(REPO, b.number) as Pull;
    expect(after.base.ref).toBe('main');
    // Updated with main (a squash of a): the diff against main is b's file alone.
    expect(s.double.isAncestor(REPO, s.double.branch(REPO, 'main')!.sha, after.head.sha)).toBe(
      true,
    );
    expect(s.double.pullDiff(REPO, b.number)).toEqual({ 'src/b.txt': 'b attempt 1\n' });
    expect((await taskOf(s, issue, 'b'))?.stackParent).toBeNull();
    await approve('b');
    expect(mergedOrder()).toEqual(['a', 'b']);
  });

  it('leaves a grandchild as it is when its parent is only updated from the base', async () => {
    const issue = await start(CHAIN.replace(/```$/, '- id: c\n  title: C\n  deps: [b]\n```'));
    const c = prOf('c');
    expect(c.base.ref).toBe(branchOf(issue, 'b'));
    await approve('a');
    // b retargeted and updated with main: its head moved by the coordinator alone.
    const b = s.double.pull(REPO, prOf('b').number) as Pull;
    expect(b.base.ref).toBe('main');
    // c needs nothing of that update: its head (and so its CI) stays, its diff is its own.
    expect((s.double.pull(REPO, c.number) as Pull).head.sha).toBe(c.head.sha);
    expect(s.double.pullDiff(REPO, c.number)).toEqual({ 'src/c.txt': 'c attempt 1\n' });
    expect((await taskOf(s, issue, 'c'))?.stackParentHead).toBe(b.head.sha);
    await approve('b');
    await approve('c');
    expect(mergedOrder()).toEqual(['a', 'b', 'c']);
    expect(s.double.pullDiff(REPO, c.number)).toEqual({ 'src/c.txt': 'c attempt 1\n' });
  });

  it('is correct when GitHub retargets the child itself (delete_branch_on_merge)', async () => {
    const issue = await start(CHAIN, { deleteBranchOnMerge: true });
    const b = prOf('b');
    await approve('a');
    expect(s.double.branch(REPO, branchOf(issue, 'a'))).toBeUndefined();
    const after = s.double.pull(REPO, b.number) as Pull;
    expect(after.state).toBe('open');
    expect(after.base.ref).toBe('main');
    // GitHub retargeted it: the coordinator wrote no base of its own (a content write saved).
    const basePatches = s.double.requests.filter(
      (r) => r.method === 'PATCH' && r.path.endsWith(`/pulls/${b.number}`),
    );
    expect(basePatches).toEqual([]);
    expect(s.double.pullDiff(REPO, b.number)).toEqual({ 'src/b.txt': 'b attempt 1\n' });
    expect((await taskOf(s, issue, 'b'))?.stackParent).toBeNull();
    await approve('b');
    expect(mergedOrder()).toEqual(['a', 'b']);
  });

  it('takes a child whose parent merged while its agent worked: its PR opens on the base (delete_branch_on_merge)', async () => {
    s = await startScenario({ config: STACK_CONFIG });
    s.double.setDeleteBranchOnMerge(REPO, true);
    const asked: Array<{
      base: string | null;
      run_base?: string | null;
      stack_parent_pr?: string | null;
    }> = [];
    s.double.setWorker(async (run) => {
      const task = run.inputs['task_id']!;
      const files = { [`src/${task}.txt`]: `${task} attempt ${run.inputs['attempt']}\n` };
      if (task !== 'b') return { kind: 'pr', files };
      // The assignment and agent jobs: b works on a's branch.
      asked.push(await assignmentFor(s, run));
      // a merges meanwhile, and GitHub deletes its branch.
      const a = prOf('a');
      await s.double.comment(REPO, a.number, '/approve', MAINTAINER);
      await s.double.waitFor((d) => d.branch(REPO, a.head.ref) === undefined, {
        description: 'a merged and its branch deleted',
      });
      // The publish job asks again, and opens the PR where the worker does (src/worker/
      // publish-step.ts): on `base` while that branch exists, else on `run_base`.
      const again = await assignmentFor(s, run);
      asked.push(again);
      const base =
        again.base !== null && !s.double.branch(REPO, again.base) && again.run_base
          ? again.run_base
          : again.base;
      return { kind: 'pr', ...(base !== null && { base }), files };
    });
    const issue = await s.double.openIssue(REPO, { title: 'Stack', body: CHAIN, user: MAINTAINER });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();

    expect(asked[0]).toMatchObject({ base: branchOf(issue, 'a'), run_base: 'main' });
    // Both jobs hear which PR the attempt was dispatched on, merged or not.
    const parentPr = String(prOf('a').number);
    expect(asked.map((a) => a.stack_parent_pr)).toEqual([parentPr, parentPr]);
    expect(mergedOrder()).toEqual(['a']);
    const b = prOf('b');
    expect(b.base.ref).toBe('main');
    expect(s.double.pullDiff(REPO, b.number)).toEqual({ 'src/b.txt': 'b attempt 1\n' });
    const task = await taskOf(s, issue, 'b');
    expect(task).toMatchObject({ state: 'in_review', stackParent: null, attemptCount: 1 });
    expect(orderTitle(prOf('b').head.sha)).not.toContainEqual(expect.stringMatching(/stacked on/));
    await approve('b');
    expect(mergedOrder()).toEqual(['a', 'b']);
  });

  it('brings the child up to date when the parent’s head changes (a review round)', async () => {
    const issue = await start(CHAIN);
    const b = prOf('b');
    await s.double.review(REPO, prOf('a').number, {
      event: 'REQUEST_CHANGES',
      body: 'Rename it.',
      by: MAINTAINER,
    });
    await s.settle();
    const a2 = prOf('a').head.sha;
    const b2 = (s.double.pull(REPO, b.number) as Pull).head.sha;
    expect(b2).not.toBe(b.head.sha);
    expect(s.double.isAncestor(REPO, a2, b2)).toBe(true);
    expect(s.double.pullDiff(REPO, b.number)).toEqual({ 'src/b.txt': 'b attempt 1\n' });
    expect((await taskOf(s, issue, 'b'))?.stackParentHead).toBe(a2);
    // The coordinator's own update is no new work: b's approval and attempt count stand.
    expect((await taskOf(s, issue, 'b'))?.attemptCount).toBe(1);
    await approve('a');
    await approve('b');
    expect(mergedOrder()).toEqual(['a', 'b']);
  });

  it('withdraws the child’s approval when a person rewrites the parent’s branch: the child still holds what was dropped', async () => {
    const issue = await start(CHAIN);
    const a1 = prOf('a').head.sha;
    const b = prOf('b');
    await approve('b');
    // a's review round: its worker's fix (a attempt 2) reaches b by a restack, approval kept.
    await s.double.review(REPO, prOf('a').number, {
      event: 'REQUEST_CHANGES',
      body: 'Rename it.',
      by: MAINTAINER,
    });
    await s.settle();
    expect(s.double.file(REPO, (s.double.pull(REPO, b.number) as Pull).head.ref, 'src/a.txt')).toBe(
      'a attempt 2\n',
    );
    // The maintainer drops that fix from a's branch (a force-push onto a's first head).
    await s.double.pushCommit(REPO, branchOf(issue, 'a'), {
      message: 'Not the fix: document it instead',
      files: { 'docs/a.md': 'a\n' },
      parent: a1,
      by: MAINTAINER,
    });
    await s.settle();
    // b still holds the dropped fix, which nobody approved: its approval is withdrawn, and its
    // PR says why, once, however many events decide its stack again.
    const bHead = (s.double.pull(REPO, b.number) as Pull).head;
    expect(s.double.isAncestor(REPO, prOf('a').head.sha, bHead.sha)).toBe(true);
    expect(s.double.file(REPO, bHead.ref, 'src/a.txt')).toBe('a attempt 2\n');
    expect((await taskOf(s, issue, 'b'))?.approvedSha).toBeNull();
    await s.app.sweep();
    await s.settle();
    const told = (s.double.comments(REPO, b.number) as Array<{ body: string }>).filter((c) =>
      c.body.startsWith('<!-- agent-coordinator:parent-rewritten '),
    );
    expect(told).toHaveLength(1);
    expect(told[0]!.body).toContain('Its approval is withdrawn');
    await approve('a');
    expect(mergedOrder()).toEqual(['a']);
    expect(s.double.file(REPO, 'main', 'src/a.txt')).toBe('a attempt 1\n');
  });

  it('holds the child for a person when GitHub refuses the App its update with the parent’s workflow change', async () => {
    const issue = await start(CHAIN);
    const a = prOf('a');
    const b = prOf('b');
    // b approved while it targets a's branch: the order check holds it until a has merged.
    await approve('b');
    const updates = () => branchUpdateAnswers(s, b.number);
    const told = () => updateRefusedComments(s, b.number);
    // A maintainer, who may write workflows, pushes one to a's branch. GitHub refuses the App's
    // update of b, whose merge would change a workflow file: 403.
    const a2 = await s.double.pushCommit(REPO, branchOf(issue, 'a'), {
      message: 'Add lint',
      files: { '.github/workflows/lint.yml': 'on: push\n' },
      by: MAINTAINER,
    });
    await s.settle();
    expect(updates()).toEqual([403]);
    // Later events (a check completing on b, the sweep) ask GitHub nothing more at b's head.
    await s.double.setCheck(REPO, b.head.sha, 'lint', 'completed', 'success');
    await s.settle();
    await s.app.sweep();
    await s.settle();
    expect(updates()).toEqual([403]);
    // No agent can push that merge: b is not sent back, and its approval is void.
    expect(
      s.double
        .runs(REPO)
        .filter((r) => r.inputs['task_id'] === 'b')
        .map((r) => r.inputs['mode']),
    ).toEqual(['work']);
    expect(await taskOf(s, issue, 'b')).toMatchObject({
      state: 'in_review',
      approvedSha: null,
      attemptCount: 1,
      stackParentHead: a.head.sha,
    });
    // The PR is told once, and the status comment notes it.
    expect(told()).toHaveLength(1);
    expect(told()[0]!.body).toContain(
      'refusing to allow a GitHub App to create or update workflow .github/workflows/lint.yml without workflows permission',
    );
    expect(told()[0]!.body).toContain('Its approval is withdrawn');
    expect(statusComment(s.double, issue)).toContain(
      `**b (#${b.number}) waits for a person:** GitHub would not let the App bring it up to date with ${branchOf(issue, 'a')}`,
    );

    // The maintainer merges a's branch into b's and pushes; CI runs on it from now on.
    s.double.pullRequestCi(REPO, [{ name: 'ci', attempts: [{ conclusion: 'success' }] }]);
    const releaseCi = async () => {
      for (const run of s.double.runs(REPO))
        if (s.double.ciHeld(run.id as number)) await s.double.releaseCi(run.id as number);
      await s.settle();
    };
    const b3 = await s.double.mergeInto(
      REPO,
      branchOf(issue, 'b'),
      branchOf(issue, 'a'),
      MAINTAINER,
    );
    await s.settle();
    await releaseCi();
    expect(s.double.commitParents(REPO, b3)).toEqual([b.head.sha, a2]);
    expect(
      s.double.runs(REPO).filter((r) => r['head_sha'] === b3 && r['name'] === 'CI'),
    ).toMatchObject([{ status: 'completed', conclusion: 'success' }]);
    // b holds a's head now: the stack follows it (GitHub's 204, nothing to merge), and b is
    // approved again.
    expect(updates()).toEqual([403, 204]);
    expect((await taskOf(s, issue, 'b'))?.stackParentHead).toBe(a2);
    expect(told()).toHaveLength(1);
    await approve('b');
    await approve('a');
    await releaseCi();
    expect(mergedOrder()).toEqual(['a', 'b']);
    expect(updates()).toEqual([403, 204, 201]);
    // b's merged content has a's workflow file and b's change.
    expect(s.double.file(REPO, 'main', '.github/workflows/lint.yml')).toBe('on: push\n');
    expect(s.double.file(REPO, 'main', 'src/b.txt')).toBe('b attempt 1\n');
    expect(s.double.file(REPO, 'main', 'src/a.txt')).toBe('a attempt 1\n');
    expect(statusComment(s.double, issue)).not.toContain('waits for a person');
  });

  it('cancels the child when the parent is vetoed, and stacks it again once the parent is retried', async () => {
    const issue = await start(CHAIN);
    const b = prOf('b');
    await s.double.comment(REPO, prOf('a').number, '/veto not this way', MAINTAINER);
    await s.settle();
    const cancelled = await taskOf(s, issue, 'b');
    expect(cancelled).toMatchObject({ state: 'blocked', stackParent: null, nextMode: 'work' });
    expect((s.double.pull(REPO, b.number) as Pull).base.ref).toBe('main');
    expect(mergedOrder()).toEqual([]);

    await s.double.comment(REPO, prOf('a').number, '/retry do it the other way', MAINTAINER);
    await s.settle();
    // a fixed and in review again: b starts over on a's new head, its PR back on a's branch.
    const again = await taskOf(s, issue, 'b');
    expect(again).toMatchObject({ stackParent: 'a', attemptCount: 2, state: 'in_review' });
    const b2 = s.double.pull(REPO, b.number) as Pull;
    expect(b2.base.ref).toBe(branchOf(issue, 'a'));
    expect(s.double.pullDiff(REPO, b.number)).toEqual({ 'src/b.txt': 'b attempt 2\n' });
    await approve('a');
    await approve('b');
    expect(mergedOrder()).toEqual(['a', 'b']);
  });

  it('never stacks the diamond’s join on two parents', async () => {
    const issue = await start(`Login.\n\n${SPEC_EXAMPLE_PLAN}`);
    const t1 = prOf('task_001');
    for (const t of ['task_002', 'task_003'])
      expect(prOf(t).base.ref).toBe(branchOf(issue, 'task_001'));
    expect(pulls().some((p) => p.head.ref.endsWith('/task_004'))).toBe(false);
    expect((await taskOf(s, issue, 'task_004'))?.state).toBe('pending');
    await approve('task_001');
    expect(t1.number).toBeGreaterThan(0);
    // task_002 and task_003 are on main now, and task_004 still waits for both to merge.
    expect(pulls().some((p) => p.head.ref.endsWith('/task_004'))).toBe(false);
    await approve('task_002');
    // One left unmerged: task_004 stacks on task_003.
    expect(prOf('task_004').base.ref).toBe(branchOf(issue, 'task_003'));
    await approve('task_003');
    await approve('task_004');
    const order = mergedOrder();
    expect(order[0]).toBe('task_001');
    expect(order[3]).toBe('task_004');
  });
});
