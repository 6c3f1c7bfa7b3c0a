import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assignmentFor, MAINTAINER, REPO, startScenario, type Scenario } from '../e2e/harness.js';
import type { RoleName } from '../github-double/model.js';
import {
  APP_BOT,
  comments,
  latestRun,
  prOf,
  repositoryId,
  snapshot,
  taskState,
  tasksBlock,
  theStatusComment,
  type CheckRun,
} from './security-helpers.js';

/**
 * docs/lifecycle.md step 1 and §4: only write, maintain and admin move anything (decided by the
 * collaborator permission API); everyone else gets one short reply per comment; bots — the
 * app itself included — are never obeyed and never answered.
 */

interface Actor {
  label: string;
  login: string;
  role?: RoleName;
  bot?: boolean;
}

const ALLOWED: Actor[] = [
  { label: 'admin', login: 'an-admin', role: 'admin' },
  { label: 'maintain', login: 'a-maintainer', role: 'maintain' },
  { label: 'write', login: 'a-writer', role: 'write' },
];

const FORKER: Actor = { label: 'fork PR author', login: 'a-forker' };

const DENIED: Actor[] = [
  { label: 'triage', login: 'a-triager', role: 'triage' },
  { label: 'read', login: 'a-reader', role: 'read' },
  { label: 'none (not a collaborator)', login: 'a-stranger' },
  FORKER,
  { label: 'github-actions[bot]', login: 'github-actions[bot]', bot: true },
  { label: 'some-app[bot]', login: 'some-app[bot]', bot: true },
  { label: 'the app itself', login: APP_BOT, bot: true },
];

const CONFIG = 'plan:\n  requireApproval: true\n';

async function grantRoles(s: Scenario): Promise<void> {
  for (const actor of [...ALLOWED, ...DENIED])
    if (actor.role) await s.double.setPermission(REPO, actor.login, actor.role);
}

async function openIssue(s: Scenario, body: string, by = MAINTAINER): Promise<number> {
  return s.double.openIssue(REPO, { title: 'Login', body, user: by });
}

// Outsiders and fork authors can only reach a public repository, so these run on one.
describe('the trigger label', () => {
  let s: Scenario;
  beforeAll(async () => {
    s = await startScenario({
      config: 'merge:\n  requireApproval: true\n',
      private: false,
      writeWindowMs: 5_000,
    });
    s.double.setWorker(null); // dispatched runs stay queued: this is about starting
    await grantRoles(s);
  });
  afterEach(() => s.double.assertNoViolations());
  afterAll(async () => s?.close());

  it.each(ALLOWED.map((a) => [a.label, a] as const))(
    '%s starts a run and dispatches',
    async (_, actor) => {
      const issue = await openIssue(s, tasksBlock([['a', 'A']]));
      await s.double.addLabel(REPO, issue, 'agent', actor.login);
      await s.settle();
      const run = await latestRun(s, issue);
      expect(run?.state).toBe('running');
      expect(run?.startedBy).toBe(actor.login);
      expect(s.double.runs(REPO).filter((r) => r.head_branch === `agent/${issue}/a`)).toHaveLength(
        1,
      );
      theStatusComment(s, issue);
    },
  );

  it.each(DENIED.filter((a) => a !== FORKER).map((a) => [a.label, a] as const))(
    '%s starts nothing',
    async (_, actor) => {
      const issue = await openIssue(s, tasksBlock([['a', 'A']]));
      const dispatched = s.double.runs(REPO).length;
      await s.double.addLabel(REPO, issue, 'agent', actor.login);
      await s.settle();
      expect(await latestRun(s, issue)).toBeUndefined();
      expect(s.double.runs(REPO)).toHaveLength(dispatched);
      expect(s.double.branches(REPO).filter((b) => b.startsWith(`agent/${issue}/`))).toEqual([]);
      const said = comments(s, issue);
      if (actor.bot) {
        expect(said).toEqual([]);
      } else {
        expect(said).toHaveLength(1);
        expect(said[0]!.user.login).toBe(APP_BOT);
        expect(said[0]!.body).toMatch(new RegExp(`^@${actor.login} only people with write access`));
        // A non-collaborator reads a public repository: GitHub answers `read`.
        expect(said[0]!.body).toContain(`your role: ${actor.role ?? 'read'}`);
      }
    },
  );
});

const REPLY_WINDOW = 60 * 60_000 + 1;

describe('commands from users below write, and from bots, move nothing', () => {
  let s: Scenario;
  /** Run held (its task held too), run awaiting plan approval, run with a task in review. */
  let held: number;
  let waiting: number;
  let running: number;
  let heldPr: number;
  let runningPr: number;

  beforeAll(async () => {
    s = await startScenario({ config: CONFIG, private: false, writeWindowMs: 5_000 });
    // Well over a hundred rejected commands inside a minute, each answered: more than GitHub's
    // secondary limit of 80 content writes a minute would let through (see the report).
    s.double.contentWritesPerMinute = 10_000;
    s.double.setWorker(() => ({ kind: 'pr' }));
    await grantRoles(s);
    const start = async (body: string, approve: boolean) => {
      const issue = await openIssue(s, body);
      await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
      await s.settle();
      if (approve) {
        await s.double.comment(REPO, issue, '/approve', MAINTAINER);
        await s.settle();
      }
      return issue;
    };
    held = await start(tasksBlock([['a', 'A']]), true);
    heldPr = prOf(s, held, 'a')!.number;
    await s.double.comment(REPO, heldPr, '/hold', MAINTAINER);
    await s.double.comment(REPO, held, '/hold', MAINTAINER);
    waiting = await start(tasksBlock([['a', 'A']]), false);
    running = await start(
      tasksBlock([
        ['a', 'A'],
        ['b', 'B', ['a']],
      ]),
      true,
    );
    runningPr = prOf(s, running, 'a')!.number;
    await s.double.openPr(REPO, {
      head: 'fork-work',
      title: 'A drive-by fix',
      by: FORKER.login,
      fromFork: true,
    });
    await s.settle();

    // The state every command below would move, were its author allowed to.
    expect((await latestRun(s, held))?.state).toBe('held');
    expect((await s.app.store.runs.task((await latestRun(s, held))!.id, 'a'))?.held).toBe(true);
    expect((await latestRun(s, waiting))?.state).toBe('awaiting_approval');
    expect((await latestRun(s, running))?.state).toBe('running');
    expect(await taskState(s, running, 'a')).toBe('in_review');
    expect(await taskState(s, running, 'b')).toBe('pending');
  });
  afterEach(() => s.double.assertNoViolations());
  afterAll(async () => s?.close());

  // Each would change something for a write user: the writer rows below prove it.
  const COMMANDS: Array<{ label: string; where: () => number; body: string }> = [
    { label: 'issue /approve (plan)', where: () => waiting, body: '/approve' },
    { label: 'issue /approve a', where: () => running, body: '/approve a' },
    { label: 'issue /veto a', where: () => running, body: '/veto a not like this' },
    { label: 'issue /retry a', where: () => running, body: '/retry a do it again' },
    { label: 'issue /hold', where: () => running, body: '/hold' },
    { label: 'issue /unhold', where: () => held, body: '/unhold' },
    { label: 'issue /cancel', where: () => running, body: '/cancel' },
    {
      label: 'issue /plan',
      where: () => running,
      body: `/plan\n${tasksBlock([['z', 'Something else']])}`,
    },
    { label: 'issue /status', where: () => running, body: '/status' },
    { label: 'issue /help', where: () => running, body: '/help' },
    { label: 'PR /approve', where: () => runningPr, body: '/approve' },
    { label: 'PR /veto', where: () => runningPr, body: '/veto not like this' },
    { label: 'PR /retry', where: () => runningPr, body: '/retry do it again' },
    { label: 'PR /hold', where: () => runningPr, body: '/hold' },
    { label: 'PR /unhold', where: () => heldPr, body: '/unhold' },
    { label: 'PR /cancel', where: () => runningPr, body: '/cancel' },
    { label: 'PR /help', where: () => runningPr, body: '/help' },
  ];

  const rows = DENIED.flatMap((actor) =>
    COMMANDS.map((command) => [actor.label, command.label, actor, command] as const),
  );

  it.each(rows)('%s: %s', async (_a, _c, actor, command) => {
    const issues = [held, waiting, running];
    const where = command.where();
    // A refresh of a status comment would now show a new time: `/status` must not cause one.
    // An hour on, so the one refusal reply per person and issue an hour is due again.
    s.clock.advance(REPLY_WINDOW);
    const before = await snapshot(s, issues);
    const id = await s.double.comment(REPO, where, command.body, actor.login);
    await s.settle();

    expect(await snapshot(s, issues)).toEqual(before);
    const after = comments(s, where);
    expect(after.find((c) => c.id === id)?.reaction_contents).toEqual([]);
    const replies = after.filter((c) => c.id > id);
    const recorded = (await s.app.store.commands.ofRepository(repositoryId(s))).filter(
      (c) => c.commentId === id,
    );
    if (actor.bot) {
      expect(replies).toEqual([]);
      expect(recorded).toEqual([]);
      return;
    }
    expect(replies).toHaveLength(1);
    expect(replies[0]!.user.login).toBe(APP_BOT);
    expect(replies[0]!.body).toMatch(
      new RegExp(`^@${actor.login} \`/\\w+\`: only people with write access`),
    );
    expect(replies[0]!.body.length).toBeLessThan(160);
    expect(recorded.map((c) => [c.actorLogin, c.accepted])).toEqual([[actor.login, false]]);
  });

  it('answers one reply for a comment holding several commands', async () => {
    s.clock.advance(REPLY_WINDOW);
    const before = await snapshot(s, [held, waiting, running]);
    const id = await s.double.comment(
      REPO,
      running,
      '/hold\n/approve a\n/cancel\n/retry a',
      'a-reader',
    );
    await s.settle();
    expect(await snapshot(s, [held, waiting, running])).toEqual(before);
    expect(comments(s, running).filter((c) => c.id > id)).toHaveLength(1);
  });

  // GitHub refuses a review of one's own PR, and the app opens the agent PRs.
  it.each(DENIED.filter((a) => a.login !== APP_BOT).map((a) => [a.label, a] as const))(
    '%s: an approving review approves nothing',
    async (_, actor) => {
      const before = await snapshot(s, [held, waiting, running]);
      const said = comments(s, runningPr).length;
      await s.double.approvePr(REPO, runningPr, actor.login);
      await s.settle();
      expect(await snapshot(s, [held, waiting, running])).toEqual(before);
      expect(comments(s, runningPr)).toHaveLength(said);
    },
  );
});

/**
 * The same commands from each allowed role, in an order where every one of them moves
 * something: the positive half of the matrix above.
 */
describe.each(ALLOWED.map((a) => [a.label, a] as const))('commands from %s', (_, actor) => {
  let s: Scenario;
  let issue: number;
  const pr = (task: string) => prOf(s, issue, task)!.number;
  const state = (task: string) => taskState(s, issue, task);
  const runsOn = (task: string) =>
    s.double.runs(REPO).filter((r) => r.head_branch === `agent/${issue}/${task}`);

  /** Post as the actor; the comment must get the app's +1 and, unless `reply`, no answer. */
  const command = async (where: number, body: string, reply = false) => {
    // The person reads what the last command's work pushed: GitHub dates the comment a second on.
    s.double.advanceClock(1_000);
    const id = await s.double.comment(REPO, where, body, actor.login);
    await s.settle();
    const after = comments(s, where);
    expect(after.find((c) => c.id === id)?.reaction_contents).toEqual([`${APP_BOT}:+1`]);
    const replies = after.filter((c) => c.id > id && c.body.startsWith(`@${actor.login}`));
    expect(replies).toHaveLength(reply ? 1 : 0);
    return replies[0]?.body ?? '';
  };

  beforeAll(async () => {
    s = await startScenario({ config: CONFIG, private: false, writeWindowMs: 5_000 });
    s.double.setWorker(() => ({ kind: 'pr' }));
    await grantRoles(s);
    issue = await openIssue(
      s,
      tasksBlock([
        ['a', 'A'],
        ['b', 'B', ['a']],
      ]),
    );
  });
  afterEach(() => s.double.assertNoViolations());
  afterAll(async () => s?.close());

  it('adds the trigger label: the run starts and waits for plan approval', async () => {
    await s.double.addLabel(REPO, issue, 'agent', actor.login);
    await s.settle();
    expect((await latestRun(s, issue))?.state).toBe('awaiting_approval');
  });

  it('/help on the issue: the command list', async () => {
    const reply = await command(issue, '/help', true);
    expect(reply).toContain('/approve');
    expect(reply).toContain('/veto');
  });

  it('/status: the status comment is rewritten now', async () => {
    const before = theStatusComment(s, issue);
    s.clock.advance(60_000);
    await command(issue, '/status');
    expect(theStatusComment(s, issue)).not.toBe(before);
    expect(theStatusComment(s, issue)).toContain(s.clock.now.toISOString());
  });

  it('/plan: the plan is replaced', async () => {
    await command(
      issue,
      `/plan\n${tasksBlock([
        ['a', 'A'],
        ['b', 'B', ['a']],
        ['c', 'C', ['a']],
        ['d', 'D', ['b']],
        ['e', 'E', ['d']],
      ])}`,
    );
    const run = await latestRun(s, issue);
    const keys = (await s.app.store.runs.tasksOf(run!.id)).map((t) => t.taskKey).sort();
    expect(keys).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(s.double.runs(REPO)).toHaveLength(0);
  });

  it('/approve on the issue: the plan is approved and dispatched', async () => {
    await command(issue, '/approve');
    expect((await latestRun(s, issue))?.state).toBe('running');
    expect(runsOn('a')).toHaveLength(1);
    expect(await state('a')).toBe('in_review');
  });

  it('/hold and /unhold on the issue: the run is held, then resumed', async () => {
    await command(issue, '/hold');
    expect((await latestRun(s, issue))?.state).toBe('held');
    await command(issue, '/unhold');
    expect((await latestRun(s, issue))?.state).toBe('running');
  });

  it('/veto <task> on the issue: the task is vetoed, its dependents blocked', async () => {
    await command(issue, '/veto a wrong shape');
    expect(await state('a')).toBe('vetoed');
    expect(await state('b')).toBe('blocked');
  });

  it('/retry <task> on the issue: the task runs again with the feedback', async () => {
    await command(issue, '/retry a use a POST body');
    expect(runsOn('a')).toHaveLength(2);
    expect(runsOn('a')[1]?.inputs).toMatchObject({ mode: 'fix', attempt: '2' });
    expect((await assignmentFor(s, runsOn('a')[1]!)).feedback).toContain('use a POST body');
    expect(await state('a')).toBe('in_review');
  });

  it('/approve <task> on the issue: the task is approved and merged', async () => {
    await command(issue, '/approve a');
    expect(await state('a')).toBe('merged');
    expect(prOf(s, issue, 'a')?.merged).toBe(true);
    expect(await state('b')).toBe('in_review');
    expect(await state('c')).toBe('in_review');
  });

  it('/help on an agent PR: the command list', async () => {
    expect(await command(pr('b'), '/help', true)).toContain('/approve');
  });

  it('/hold, /approve, /unhold on an agent PR: held back, then merged', async () => {
    await command(pr('b'), '/hold');
    await command(pr('b'), '/approve');
    expect(await state('b')).toBe('approved');
    expect(prOf(s, issue, 'b')?.merged).toBe(false);
    await command(pr('b'), '/unhold');
    expect(await state('b')).toBe('merged');
    expect(await state('d')).toBe('in_review');
  });

  it('/veto on an agent PR: vetoed, the order check fails', async () => {
    await command(pr('c'), '/veto not needed');
    expect(await state('c')).toBe('vetoed');
    // One order check on the head, now failing: no second, passing one left beside it.
    const checks = s.double.checkRuns(REPO, prOf(s, issue, 'c')!.head.sha) as CheckRun[];
    expect(
      checks.filter((c) => c.name === 'agent-coordinator/order').map((c) => c.conclusion),
    ).toEqual(['failure']);
  });

  it('/retry on an agent PR: the task runs again in mode=fix', async () => {
    await command(pr('c'), '/retry try again');
    expect(runsOn('c')).toHaveLength(2);
    expect(runsOn('c')[1]?.inputs.mode).toBe('fix');
    expect(await state('c')).toBe('in_review');
  });

  it('/cancel on an agent PR: the task is cancelled', async () => {
    await command(pr('c'), '/cancel');
    expect(await state('c')).toBe('cancelled');
    expect(prOf(s, issue, 'c')?.state).toBe('open');
  });

  it('an approving review: the task is approved and merged', async () => {
    await s.double.approvePr(REPO, pr('d'), actor.login);
    await s.settle();
    expect(await state('d')).toBe('merged');
    expect(await state('e')).toBe('in_review');
  });

  it('/cancel on the issue: the run is cancelled', async () => {
    await command(issue, '/cancel');
    expect((await latestRun(s, issue))?.state).toBe('cancelled');
    expect(await state('e')).toBe('cancelled');
  });
});
