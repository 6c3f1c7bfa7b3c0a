import { afterEach, describe, expect, it } from 'vitest';
import {
  CHAIN_OF_TWO,
  MAINTAINER,
  REPO,
  SPEC_EXAMPLE_PLAN,
  startScenario,
  branchUpdateAnswers,
  branchUpdates,
  updateRefusedComments,
  statusComment,
  type Scenario,
  repositoryIdOf,
  taskOf,
  closeScenario,
  chaoticDelivery,
  DELIVERY_SEEDS,
  assignmentFor,
  ONE_TASK_PLAN,
} from './harness.js';

type Pull = {
  number: number;
  state: string;
  merged?: boolean;
  head: { ref: string; sha: string };
  body: string;
};

/** docs/lifecycle.md steps 7–11 and §4 on the GitHub double: review, commands, merge order, the queue. */
describe.each(DELIVERY_SEEDS)('review and merge (GitHub double, delivery seed %i)', (seed) => {
  const delivery = chaoticDelivery(seed);
  // The whole docs/tasks-block.md run and the merge queue run under every seed; the other scenarios under
  // the first, which keeps the suite's time in bounds.
  const onFirstSeed = seed === DELIVERY_SEEDS[0] ? it : undefined;
  const LONG = { timeout: 60_000 };
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const repositoryId = () => repositoryIdOf(s.double);
  const pulls = () => s.double.pulls(REPO) as Pull[];
  const prOf = (task: string) => pulls().find((p) => p.head.ref.endsWith(`/${task}`));
  const task = (issue: number, key: string) => taskOf(s, issue, key);
  const mergedOrder = () =>
    s.double
      .deliveries({ event: 'pull_request', action: 'closed' })
      .filter((d) => (d.payload.pull_request as { merged: boolean }).merged)
      .map((d) => (d.payload.pull_request as { head: { ref: string } }).head.ref.split('/')[2]);
  const start = async (body: string) => {
    const issue = await s.double.openIssue(REPO, { title: 'Login', body, user: MAINTAINER });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    return issue;
  };
  const approveAllOpen = async () => {
    // A person reviews the head first: GitHub dates the comment a second after its push.
    s.double.advanceClock(1_000);
    for (const pr of pulls().filter((p) => p.state === 'open'))
      await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
    await s.settle();
  };
  const orderCheck = (sha: string) =>
    (
      s.double.checkRuns(REPO, sha) as Array<{
        name: string;
        status: string;
        conclusion: string | null;
        output: { title: string };
      }>
    ).filter((c) => c.name === 'agent-coordinator/order');

  it(
    'takes the docs/tasks-block.md example from label to closed issue, merging only in dependency order',
    LONG,
    async () => {
      s = await startScenario({ delivery });
      s.double.setWorker(() => ({ kind: 'pr', costUsd: 0.5 }));
      const issue = await start(`Add login.\n\n${SPEC_EXAMPLE_PLAN}`);
      for (
        let round = 0;
        round < 6 && (s.double.issue(REPO, issue) as { state: string }).state === 'open';
        round++
      ) {
        await approveAllOpen();
      }
      expect((s.double.issue(REPO, issue) as { state: string }).state).toBe('closed');
      expect(s.double.labels(REPO, issue)).toContain('agent:done');
      const order = mergedOrder();
      expect(order).toHaveLength(4);
      expect(order[0]).toBe('task_001');
      expect(order.indexOf('task_004')).toBe(3);
      const status = statusComment(s.double, issue);
      expect(status).toContain('every task is merged');
      expect(status).toContain('$2.00 / $20.00');
      const run = await s.app.store.runs.latestRun(repositoryId(), issue);
      expect(run?.state).toBe('done');
      // Each accepted /approve got a reaction; none got a reply.
      const replies = (
        s.double.comments(REPO, issue) as Array<{ body: string; user: { login: string } }>
      ).filter((c) => c.body.startsWith('@maintainer'));
      expect(replies).toEqual([]);
    },
  );

  onFirstSeed?.('keeps an order check on every agent PR head: waiting, then success', async () => {
    s = await startScenario({ delivery });
    s.double.setWorker(() => ({ kind: 'pr' }));
    const plan = ['```tasks', '- id: a', '  title: A', '- id: b', '  title: B', '```'].join('\n');
    const chain = plan.replace('  title: B', '  title: B\n  deps: [a]');
    const issue = await start(chain);
    const a = prOf('a')!;
    const states = (sha: string) =>
      orderCheck(sha).map((c) => `${c.conclusion ?? c.status}: ${c.output.title}`);
    expect(states(a.head.sha)).toEqual([
      `in_progress: waiting for /approve of ${a.head.sha.slice(0, 7)}`,
    ]);
    await approveAllOpen();
    expect((await task(issue, 'a'))?.state).toBe('merged');
    expect(states(a.head.sha)).toEqual(['success: approved, no dependencies']);
    const b = prOf('b')!;
    expect(states(b.head.sha)).toEqual([
      `in_progress: waiting for /approve of ${b.head.sha.slice(0, 7)}`,
    ]);
    await approveAllOpen();
    expect(states(b.head.sha)).toEqual(['success: approved, dependencies merged']);
  });

  it('merges through the merge queue when the base branch has one', async () => {
    s = await startScenario({ delivery });
    await s.double.enableMergeQueue(REPO, 'main');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await start(CHAIN_OF_TWO);
    await approveAllOpen();
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([prOf('a')!.number]);
    expect((await task(issue, 'a'))?.state).toBe('merging');
    const result = await s.double.processMergeQueue(REPO, 'main');
    await s.settle();
    expect(result.merged).toEqual([prOf('a')!.number]);
    const groupChecks = s.double.checkRuns(REPO, result.headSha!) as Array<{
      name: string;
      conclusion: string;
    }>;
    expect(groupChecks.find((c) => c.name === 'agent-coordinator/order')?.conclusion).toBe(
      'success',
    );
    expect((await task(issue, 'a'))?.state).toBe('merged');
    await approveAllOpen();
    await s.double.processMergeQueue(REPO, 'main');
    await s.settle();
    expect((s.double.issue(REPO, issue) as { state: string }).state).toBe('closed');
    expect(mergedOrder()).toEqual(['a', 'b']);
  });

  onFirstSeed?.('gives back the merge claim of a PR a person removed from the queue', async () => {
    s = await startScenario({ delivery });
    await s.double.enableMergeQueue(REPO, 'main');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await start(ONE_TASK_PLAN);
    await approveAllOpen();
    const pr = prOf('a')!.number;
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([pr]);
    const enqueued = () => s.double.deliveries({ event: 'pull_request', action: 'enqueued' });
    expect(enqueued()).toHaveLength(1);
    await s.double.removeFromMergeQueue(REPO, pr, MAINTAINER);
    await s.settle();
    // The claim was given back and the merge decided again: still approved, so queued again.
    expect(enqueued()).toHaveLength(2);
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([pr]);
    expect((await task(issue, 'a'))?.state).toBe('merging');
    expect(s.double.runs(REPO).filter((r) => r.head_branch === 'agent/1/a')).toHaveLength(1);
  });

  it('sends a PR the merge queue removed for failing checks back to its worker', async () => {
    s = await startScenario({ delivery });
    await s.double.enableMergeQueue(REPO, 'main');
    await s.double.setRequiredChecks(REPO, 'main', ['ci']);
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await start(ONE_TASK_PLAN);
    await s.double.setCheck(REPO, prOf('a')!.head.sha, 'ci', 'completed', 'success');
    await approveAllOpen();
    expect(s.double.mergeQueue(REPO, 'main')).toEqual([prOf('a')!.number]);
    const processing = s.double.processMergeQueue(REPO, 'main');
    const group = await s.double.waitFor(
      (d) => d.deliveries({ event: 'merge_group', action: 'checks_requested' })[0],
      { description: 'merge group checks requested' },
    );
    const groupSha = (group.payload.merge_group as { head_sha: string }).head_sha;
    await s.double.setCheck(REPO, groupSha, 'ci', 'completed', 'failure');
    const result = await processing;
    await s.settle();
    expect(result.merged).toEqual([]);
    const runs = s.double.runs(REPO).filter((r) => r.head_branch === 'agent/1/a');
    expect(runs.map((r) => r.inputs.mode)).toEqual(['work', 'fix']);
    expect((await assignmentFor(s, runs[1]!)).feedback).toContain(
      'checks failed on the merge group',
    );
    expect((await task(issue, 'a'))?.state).toBe('in_review');
  });

  onFirstSeed?.(
    'vetoes a task (order check fails, dependents blocked), then retries it with feedback',
    async () => {
      s = await startScenario({ delivery });
      s.double.setWorker(() => ({ kind: 'pr' }));
      const plan = [
        '```tasks',
        '- id: a',
        '  title: A',
        '- id: b',
        '  title: B',
        '  deps: [a]',
        '```',
      ].join('\n');
      const issue = await start(plan);
      const a = prOf('a')!;
      await s.double.comment(REPO, a.number, '/veto the API shape is wrong', MAINTAINER);
      await s.settle();
      expect((await task(issue, 'a'))?.state).toBe('vetoed');
      expect((await task(issue, 'b'))?.state).toBe('blocked');
      const check = orderCheck(a.head.sha)[0]!;
      expect(check.conclusion).toBe('failure');
      expect(check.output.title).toContain('the API shape is wrong');
      expect(mergedOrder()).toEqual([]);

      await s.double.comment(REPO, a.number, '/retry use a POST body instead', MAINTAINER);
      await s.settle();
      const runs = s.double.runs(REPO).filter((r) => r.head_branch === 'agent/1/a');
      expect(runs).toHaveLength(2);
      expect(runs[1]?.inputs).toMatchObject({ mode: 'fix', attempt: '2' });
      expect((await assignmentFor(s, runs[1]!)).feedback).toContain('use a POST body instead');
      expect((await assignmentFor(s, runs[1]!)).feedback).toContain('the API shape is wrong');
      expect(pulls()).toHaveLength(1); // same PR
      expect((await task(issue, 'a'))?.state).toBe('in_review');
      expect((await task(issue, 'b'))?.state).toBe('pending');
      await approveAllOpen();
      expect((await task(issue, 'a'))?.state).toBe('merged');
    },
  );

  onFirstSeed?.('ignores /approve from users without write access, and from bots', async () => {
    s = await startScenario({ delivery });
    await s.double.setPermission(REPO, 'reader', 'read');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await start(ONE_TASK_PLAN);
    const a = prOf('a')!;
    await s.double.comment(REPO, a.number, '/approve', 'reader');
    await s.double.comment(REPO, a.number, '/approve', 'github-actions[bot]');
    await s.settle();
    expect((await task(issue, 'a'))?.state).toBe('in_review');
    expect(mergedOrder()).toEqual([]);
    const replies = (s.double.comments(REPO, a.number) as Array<{ body: string }>).filter((c) =>
      c.body.startsWith('@reader'),
    );
    expect(replies).toHaveLength(1);
    expect(replies[0]!.body).toContain('write access');
    const recorded = await s.app.store.commands.ofRepository(repositoryId());
    expect(recorded.map((c) => [c.actorLogin, c.accepted])).toEqual([['reader', false]]);
  });

  onFirstSeed?.('approves by an approving review from a write user', async () => {
    s = await startScenario({ delivery });
    await s.double.setPermission(REPO, 'reviewer', 'write');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await start(ONE_TASK_PLAN);
    await s.double.approvePr(REPO, prOf('a')!.number, 'reviewer');
    await s.settle();
    expect((await task(issue, 'a'))?.state).toBe('merged');
  });

  onFirstSeed?.('updates a PR that is behind its base, keeping its approval', async () => {
    s = await startScenario({ delivery });
    await s.double.setRequiredChecks(REPO, 'main', [], { strict: true });
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await start(ONE_TASK_PLAN);
    await s.double.advanceBranch(REPO, 'main');
    await s.settle();
    await approveAllOpen();
    // The approval moved to the update's head, still the maintainer's.
    expect(await task(issue, 'a')).toMatchObject({
      state: 'merged',
      approvedSha: prOf('a')!.head.sha,
      approvedBy: MAINTAINER,
    });
    expect(branchUpdateAnswers(s, prOf('a')!.number)).toEqual([201]);
    expect(s.double.runs(REPO)).toHaveLength(1); // no worker needed for an update
  });

  onFirstSeed?.(
    'waits for a person when GitHub refuses the App the update of a PR behind a workflow change',
    async () => {
      s = await startScenario({ delivery });
      await s.double.setRequiredChecks(REPO, 'main', [], { strict: true });
      s.double.setWorker(() => ({ kind: 'pr' }));
      const issue = await start(ONE_TASK_PLAN);
      const a = prOf('a')!;
      const updates = () => branchUpdateAnswers(s, a.number);
      const told = () => updateRefusedComments(s, a.number);
      // main gains a workflow file: merging it into a's branch is a push the App may not make.
      await s.double.pushCommit(REPO, 'main', {
        message: 'Add lint',
        files: { '.github/workflows/lint.yml': 'on: push\n' },
        by: MAINTAINER,
      });
      await approveAllOpen();
      expect(updates()).toEqual([403]);
      // Later events (a check completing, the sweep) ask GitHub nothing more at this head.
      await s.double.setCheck(REPO, a.head.sha, 'lint', 'completed', 'success');
      await s.settle();
      await s.app.sweep();
      await s.settle();
      expect(updates()).toEqual([403]);
      // It waits, approved, for a person: no send-back, the PR told once, the status noting it.
      expect(await task(issue, 'a')).toMatchObject({ state: 'approved', attemptCount: 1 });
      expect(s.double.runs(REPO)).toHaveLength(1);
      expect(told()).toHaveLength(1);
      expect(told()[0]!.body).toContain(
        'refusing to allow a GitHub App to create or update workflow .github/workflows/lint.yml without workflows permission',
      );
      expect(told()[0]!.body).not.toContain('approval');
      expect(statusComment(s.double, issue)).toContain(
        `**a (#${a.number}) waits for a person:** GitHub would not let the App bring it up to date with main`,
      );

      // The maintainer merges main into the branch and pushes: its new head is approved and merges.
      await s.double.mergeInto(REPO, a.head.ref, 'main', MAINTAINER);
      await s.settle();
      await approveAllOpen();
      expect((await task(issue, 'a'))?.state).toBe('merged');
      expect(updates()).toEqual([403]);
      expect(told()).toHaveLength(1);
      expect(s.double.file(REPO, 'main', '.github/workflows/lint.yml')).toBe('on: push\n');
      expect(statusComment(s.double, issue)).not.toContain('waits for a person');
    },
  );

  onFirstSeed?.(
    'updates PRs behind the same base one at a time, each keeping its approval',
    LONG,
    async () => {
      s = await startScenario({ delivery });
      await s.double.setRequiredChecks(REPO, 'main', ['ci'], { strict: true });
      s.double.pullRequestCi(REPO, [{ name: 'ci', attempts: [{ conclusion: 'success' }] }]);
      s.double.setWorker(() => ({ kind: 'pr' }));
      const releaseCi = async () => {
        for (const run of s.double.runs(REPO))
          if (s.double.ciHeld(run.id as number)) await s.double.releaseCi(run.id as number);
        await s.settle();
      };
      const updates = () => [
        ...branchUpdates(s, prOf('a')!.number).map((u) => ({ pr: 'a', ...u })),
        ...branchUpdates(s, prOf('b')!.number).map((u) => ({ pr: 'b', ...u })),
      ];
      const issue = await start(
        ['```tasks', '- id: a', '  title: A', '- id: b', '  title: B', '```'].join('\n'),
      );
      await releaseCi();
      await s.double.advanceBranch(REPO, 'main');
      await s.settle();
      await approveAllOpen();
      // Both are behind; a goes first, and b waits while a's update runs its CI.
      expect(updates().map((u) => u.pr)).toEqual(['a']);
      await releaseCi();
      expect((await task(issue, 'a'))?.state).toBe('merged');
      // Now b, once.
      expect(updates()).toHaveLength(2);
      await releaseCi();
      expect((await task(issue, 'b'))?.state).toBe('merged');
      expect(updates()).toHaveLength(2);
      expect(updates().every((u) => u.status === 201)).toBe(true);
      // No update was taken for a conflict, and no approval had to be given again.
      expect(s.double.runs(REPO).filter((r) => r.inputs.mode === 'fix')).toEqual([]);
      expect(
        (s.double.comments(REPO, prOf('b')!.number) as Array<{ body: string }>).filter(
          (c) => c.body === '/approve',
        ),
      ).toHaveLength(1);
    },
  );

  onFirstSeed?.('sends a conflicted PR back to its worker in mode=fix', async () => {
    s = await startScenario({ delivery });
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await start(ONE_TASK_PLAN);
    await s.double.setConflict(REPO, prOf('a')!.number, true);
    await approveAllOpen();
    const runs = s.double.runs(REPO);
    expect(runs).toHaveLength(2);
    expect(runs[1]?.inputs.mode).toBe('fix');
    expect((await assignmentFor(s, runs[1]!)).feedback).toContain('conflict');
    expect((await task(issue, 'a'))?.state).toBe('in_review');
  });

  onFirstSeed?.('rejects a task whose PR a person closes, and blocks its dependents', async () => {
    s = await startScenario({ delivery });
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await start(
      ['```tasks', '- id: a', '  title: A', '- id: b', '  title: B', '  deps: [a]', '```'].join(
        '\n',
      ),
    );
    await s.double.closePr(REPO, prOf('a')!.number, MAINTAINER);
    await s.settle();
    expect((await task(issue, 'a'))?.state).toBe('rejected');
    expect((await task(issue, 'b'))?.state).toBe('blocked');
    const run = await s.app.store.runs.latestRun(repositoryId(), issue);
    expect(run?.state).toBe('failed');
  });

  onFirstSeed?.(
    'holds the run at the budget: merges go on, nothing new is dispatched, /unhold lifts it',
    async () => {
      s = await startScenario({
        delivery,
        config: 'budget:\n  maxCostUsdPerRun: 1\nmerge:\n  requireApproval: false\n',
      });
      s.double.setWorker(() => ({ kind: 'pr', costUsd: 0.6 }));
      const plan = [
        '```tasks',
        '- id: a',
        '  title: A',
        '- id: b',
        '  title: B',
        '- id: c',
        '  title: C',
        '  deps: [a, b]',
        '```',
      ].join('\n');
      const issue = await start(plan);
      const run = await s.app.store.runs.latestRun(repositoryId(), issue);
      expect(run?.state).toBe('held');
      expect((await task(issue, 'a'))?.state).toBe('merged');
      expect((await task(issue, 'b'))?.state).toBe('merged');
      expect((await task(issue, 'c'))?.state).toBe('pending');
      const note = (s.double.comments(REPO, issue) as Array<{ body: string }>).find((c) =>
        c.body.startsWith('**agent-coordinator**: budget reached'),
      );
      expect(note?.body).toContain('$1.20 of $1.00');
      expect(statusComment(s.double, issue)).toContain('budget reached');
      await s.double.comment(REPO, issue, '/unhold', MAINTAINER);
      await s.settle();
      expect((await task(issue, 'c'))?.state).toBe('merged');
      expect((s.double.issue(REPO, issue) as { state: string }).state).toBe('closed');
    },
  );
});
