import { describe, expect, it } from 'vitest';
import {
  APPROVABLE_TASK_STATES,
  approvalAfterPush,
  commandApproval,
  decideApproval,
  type ApprovalVerdict,
  type CommandApproval,
  type CommandApprovalFacts,
} from '../../../src/core/lifecycle/index.js';
import { TASK_STATES, type TaskState } from '../../../src/core/states.js';

const HEAD = 'head';
const OLD = 'old';
const REVIEWER = 'rita';
const T0 = new Date('2025-03-01T10:00:00Z');
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe('decideApproval', () => {
  it.each<{
    name: string;
    state: TaskState;
    approvedSha?: string;
    sha: string;
    expected: ApprovalVerdict;
  }>([
    {
      name: 'in review, the head: approved',
      state: 'in_review',
      sha: HEAD,
      expected: {
        kind: 'record',
        state: 'approved',
        approvedSha: HEAD,
        approvedAt: null,
        approvedBy: REVIEWER,
        approvalOriginSha: HEAD,
        move: 'approved',
      },
    },
    {
      name: 'approved again, the head: stays approved',
      state: 'approved',
      approvedSha: HEAD,
      sha: HEAD,
      expected: {
        kind: 'record',
        state: 'approved',
        approvedSha: HEAD,
        approvedAt: null,
        approvedBy: REVIEWER,
        approvalOriginSha: HEAD,
        move: 'approved',
      },
    },
    {
      name: 'in review, an older commit: recorded, not approved',
      state: 'in_review',
      sha: OLD,
      expected: {
        kind: 'record',
        state: 'in_review',
        approvedSha: OLD,
        approvedAt: null,
        approvedBy: REVIEWER,
        approvalOriginSha: OLD,
        move: 'older head approved',
      },
    },
    {
      name: 'a late approval of an older commit keeps the one of the head',
      state: 'approved',
      approvedSha: HEAD,
      sha: OLD,
      expected: { kind: 'keep' },
    },
    {
      name: 'an older commit replaces an approval of another older commit',
      state: 'in_review',
      approvedSha: 'older',
      sha: OLD,
      expected: {
        kind: 'record',
        state: 'in_review',
        approvedSha: OLD,
        approvedAt: null,
        approvedBy: REVIEWER,
        approvalOriginSha: OLD,
        move: 'older head approved',
      },
    },
    ...(['pending', 'dispatched', 'running'] as const).map((state) => ({
      name: `${state}: recorded for the head, the state stays until review`,
      state,
      sha: HEAD,
      expected: {
        kind: 'record',
        state,
        approvedSha: HEAD,
        approvedAt: null,
        approvedBy: REVIEWER,
        approvalOriginSha: HEAD,
      } as ApprovalVerdict,
    })),
  ])('$name', ({ state, approvedSha, sha, expected }) => {
    expect(
      decideApproval(
        { state, approvedSha: approvedSha ?? null },
        { sha, currentHead: HEAD, by: REVIEWER },
      ),
    ).toEqual(expected);
  });

  it('records when a plain /approve was written, and clears it for one that names its commit', () => {
    const task = { state: 'in_review' as const, approvedSha: null };
    expect(
      decideApproval(task, { sha: HEAD, currentHead: HEAD, writtenAt: T0, by: REVIEWER }),
    ).toEqual({
      kind: 'record',
      state: 'approved',
      approvedSha: HEAD,
      approvedAt: T0,
      approvedBy: REVIEWER,
      approvalOriginSha: HEAD,
      move: 'approved',
    });
  });

  it.each(TASK_STATES.filter((s) => !APPROVABLE_TASK_STATES.has(s)))(
    'refuses a task that is %s',
    (state) => {
      expect(
        decideApproval(
          { state, approvedSha: null },
          { sha: HEAD, currentHead: HEAD, by: REVIEWER },
        ),
      ).toEqual({ kind: 'refuse' });
    },
  );
});

/** SHAs as GitHub spells them: 40 hex digits. */
const NEW_HEAD = 'c0ffee0123456789abcdef0123456789abcdef01';

describe('commandApproval: an approval covers only a head its author could have seen', () => {
  const facts = (more: Partial<CommandApprovalFacts>): CommandApprovalFacts => ({
    writtenAt: T0,
    head: NEW_HEAD,
    workPushedAt: null,
    by: REVIEWER,
    deliveredHead: NEW_HEAD,
    update: null,
    ...more,
  });
  const approves = (writtenAt?: Date): CommandApproval => ({
    ok: true,
    approval: {
      sha: NEW_HEAD,
      currentHead: NEW_HEAD,
      by: REVIEWER,
      ...(writtenAt ? { writtenAt } : {}),
    },
  });
  const pushedAfter: CommandApproval = {
    ok: false,
    reason:
      'new commits reached this pull request after this comment was written: review its head `c0ffee0` and `/approve` again, or `/approve c0ffee0`',
  };
  const pushNotSeen: CommandApproval = {
    ok: false,
    reason:
      'new commits reached this pull request whose push the coordinator has not handled yet, so it cannot tell whether they came before this comment was written: nothing was approved. Review its head `c0ffee0` and `/approve` again shortly, or `/approve c0ffee0`',
  };
  it.each<{ name: string; facts: CommandApprovalFacts; expected: CommandApproval }>([
    {
      name: 'no push known: the head as GitHub shows it',
      facts: facts({}),
      expected: approves(T0),
    },
    {
      name: 'the last push before the comment',
      facts: facts({ workPushedAt: later(-60) }),
      expected: approves(T0),
    },
    {
      name: 'the last push in the same second as the comment (GitHub dates to the second): nothing approved',
      facts: facts({ workPushedAt: T0 }),
      expected: pushedAfter,
    },
    {
      name: 'new work pushed after the comment was written: nothing approved',
      facts: facts({ workPushedAt: later(1) }),
      expected: pushedAfter,
    },
    {
      name: 'the head GitHub shows came by a push whose delivery is still to come: nothing approved',
      facts: facts({ workPushedAt: later(-60), deliveredHead: OLD }),
      expected: pushNotSeen,
    },
    {
      name: 'no delivery dated any head yet (the PR linked from a read): nothing approved',
      facts: facts({ deliveredHead: null }),
      expected: pushNotSeen,
    },
    {
      name: 'the coordinator’s update of the delivered head, its push still to come: approved',
      facts: facts({ deliveredHead: OLD, update: { from: OLD, to: NEW_HEAD } }),
      expected: approves(T0),
    },
    {
      name: 'another commit on the head the coordinator updated, a merge or not: nothing approved',
      facts: facts({ deliveredHead: OLD, update: { from: OLD, to: HEAD } }),
      expected: pushNotSeen,
    },
    {
      name: 'an update of the delivered head whose answer is not recorded yet: nothing approved',
      facts: facts({ deliveredHead: OLD, update: { from: OLD, to: null } }),
      expected: pushNotSeen,
    },
    {
      name: 'the update of a head other than the delivered one: nothing approved',
      facts: facts({ deliveredHead: OLD, update: { from: HEAD, to: NEW_HEAD } }),
      expected: pushNotSeen,
    },
    {
      name: 'new work pushed after the comment, its delivery handled, then a later push not yet',
      facts: facts({ workPushedAt: later(1), deliveredHead: OLD }),
      expected: pushedAfter,
    },
    {
      name: '/approve <sha> of a head whose push is still to come: approved, it names the head',
      facts: facts({ named: 'c0ffee0', deliveredHead: OLD }),
      expected: approves(),
    },
    {
      name: '/approve <sha> of the head: approved, bound to the SHA and not to the time',
      facts: facts({ named: 'c0ffee0', workPushedAt: later(60) }),
      expected: approves(),
    },
    {
      name: '/approve <sha> with the whole SHA, in capitals',
      facts: facts({ named: NEW_HEAD.toUpperCase() }),
      expected: approves(),
    },
    {
      name: '/approve <sha> of another commit: nothing approved, the reply names the head',
      facts: facts({ named: 'deadbee' }),
      expected: {
        ok: false,
        reason:
          '`deadbee` is not the head of this pull request: its head is `c0ffee0`, nothing was approved',
      },
    },
  ])('$name', ({ facts: given, expected }) => {
    expect(commandApproval(given)).toEqual(expected);
  });
});

describe('approvalAfterPush: new work withdraws a plain /approve written before it', () => {
  const push = (at: Date) => ({ head: NEW_HEAD, at });
  it.each<{
    name: string;
    task: { approvedSha: string | null; approvedAt: Date | null };
    at: Date;
    kind: 'stands' | 'withdraw';
  }>([
    {
      name: 'no approval',
      task: { approvedSha: null, approvedAt: null },
      at: later(5),
      kind: 'stands',
    },
    {
      name: 'an approval naming its commit (a review, /approve <sha>)',
      task: { approvedSha: NEW_HEAD, approvedAt: null },
      at: later(5),
      kind: 'stands',
    },
    {
      name: 'a push GitHub dates before the /approve (a late delivery)',
      task: { approvedSha: OLD, approvedAt: T0 },
      at: later(-5),
      kind: 'stands',
    },
    {
      name: 'a push in the same second as the /approve (GitHub dates to the second)',
      task: { approvedSha: NEW_HEAD, approvedAt: T0 },
      at: T0,
      kind: 'withdraw',
    },
    {
      name: 'a push after the /approve that recorded the new head (handled first)',
      task: { approvedSha: NEW_HEAD, approvedAt: T0 },
      at: later(5),
      kind: 'withdraw',
    },
    {
      name: 'a push after the /approve of the older head',
      task: { approvedSha: OLD, approvedAt: T0 },
      at: later(5),
      kind: 'withdraw',
    },
  ])('$name: $kind', ({ task, at, kind }) => {
    expect(approvalAfterPush(task, push(at)).kind).toBe(kind);
  });

  it('says why in the reply, naming the head to review', () => {
    const verdict = approvalAfterPush({ approvedSha: OLD, approvedAt: T0 }, push(later(5)));
    expect(verdict).toEqual({
      kind: 'withdraw',
      reply:
        'The `/approve` of `old` was written before new commits reached this pull request: it does not count for its head `c0ffee0`. Review it and `/approve` again, or `/approve c0ffee0`.',
    });
  });
});
