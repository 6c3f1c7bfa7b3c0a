import { describe, expect, it } from 'vitest';
import {
  decidePullLink,
  isAgentPull,
  isOpenedByApp,
  isOpenAppPull,
  decideLookAlikePull,
  type PullLinkDecision,
  type PullLinkEvent,
  type PullLinkSnapshot,
} from '../../../src/core/lifecycle/index.js';
import { agentConfigMarker } from '../../../src/protocol/markers.js';

const OLD = 'a'.repeat(40);
const UPDATED = 'b'.repeat(40);
const NEW = 'c'.repeat(40);
const AT = new Date('2026-01-01T10:00:00Z');
const BODY = `Work.\n\n${agentConfigMarker(['CLAUDE.md'])}`;

/** The coordinator's update of OLD, answered with its merge commit UPDATED. */
const UPDATE = { updatedByCoordinatorFrom: OLD, updatedByCoordinatorTo: UPDATED };

const snap = (
  task: Partial<PullLinkSnapshot['task']> = {},
  row: Partial<PullLinkSnapshot['row']> = {},
): PullLinkSnapshot => ({
  task: { prNumber: 7, approvedSha: null, ...task },
  row: {
    updatedByCoordinatorFrom: null,
    updatedByCoordinatorTo: null,
    agentConfigChanged: [],
    ...row,
  },
});

/** docs/lifecycle.md step 8: what a sighting of a task's agent PR records. */
describe('decidePullLink', () => {
  it.each<{
    name: string;
    snapshot: PullLinkSnapshot;
    event: Omit<PullLinkEvent, 'number'>;
    expected: PullLinkDecision;
  }>([
    {
      name: 'a PR the task links already, no push: nothing',
      snapshot: snap(),
      event: { head: OLD },
      expected: { pushOfWork: false, effects: [] },
    },
    {
      name: 'a PR the task does not link yet: linked, and the status says so',
      snapshot: snap({ prNumber: null }),
      event: { head: OLD },
      expected: {
        pushOfWork: false,
        effects: [{ kind: 'linkTask', prNumber: 7 }, { kind: 'requestStatus' }],
      },
    },
    {
      name: 'a closed PR the task does not link, the task linking none: linked',
      snapshot: snap({ prNumber: null }),
      event: { head: OLD, state: 'closed', merged: false },
      expected: {
        pushOfWork: false,
        effects: [{ kind: 'linkTask', prNumber: 7 }, { kind: 'requestStatus' }],
      },
    },
    {
      name: 'a closed PR while the task links a later one (retried after the close): not linked',
      snapshot: snap({ prNumber: 9 }),
      event: { head: OLD, state: 'closed', merged: false },
      expected: { pushOfWork: false, effects: [] },
    },
    {
      name: 'a merged PR while the task links another: linked (the task merged through it)',
      snapshot: snap({ prNumber: 9 }),
      event: { head: OLD, state: 'closed', merged: true },
      expected: {
        pushOfWork: false,
        effects: [{ kind: 'linkTask', prNumber: 7 }, { kind: 'requestStatus' }],
      },
    },
    {
      name: 'a push of work, dated: its time recorded',
      snapshot: snap(),
      event: { head: NEW, before: OLD, pushedAt: AT },
      expected: { pushOfWork: true, effects: [{ kind: 'recordWorkPushed', at: AT }] },
    },
    {
      name: 'a push of work GitHub does not date: work, nothing recorded',
      snapshot: snap(),
      event: { head: NEW, before: OLD },
      expected: { pushOfWork: true, effects: [] },
    },
    {
      name: 'the coordinator’s own update of the approved head carries the approval',
      snapshot: snap({ approvedSha: OLD }, UPDATE),
      event: { head: UPDATED, before: OLD, pushedAt: AT },
      expected: { pushOfWork: false, effects: [{ kind: 'carryApproval', approvedSha: UPDATED }] },
    },
    {
      name: 'a commit other than the update’s merge, pushed on the head it updated, is work',
      snapshot: snap({ approvedSha: OLD }, UPDATE),
      event: { head: NEW, before: OLD, pushedAt: AT },
      expected: {
        pushOfWork: true,
        effects: [{ kind: 'recordWorkPushed', at: AT }, { kind: 'clearUpdate' }],
      },
    },
    {
      name: 'the coordinator’s own update of a head not approved carries nothing',
      snapshot: snap({}, UPDATE),
      event: { head: UPDATED, before: OLD, pushedAt: AT },
      expected: { pushOfWork: false, effects: [] },
    },
    {
      name: 'a push from the head an update is out for, its answer not recorded: nothing yet',
      snapshot: snap({ approvedSha: OLD }, { updatedByCoordinatorFrom: OLD }),
      event: { head: UPDATED, before: OLD, pushedAt: AT, headArrivedAt: AT, body: BODY },
      expected: { awaitUpdate: true },
    },
    {
      name: 'the same after the merge turn, no answer recorded (lost): work, the update spent',
      snapshot: {
        ...snap({ approvedSha: OLD }, { updatedByCoordinatorFrom: OLD }),
        afterTurn: true,
      },
      event: { head: UPDATED, before: OLD, pushedAt: AT },
      expected: {
        pushOfWork: true,
        effects: [{ kind: 'recordWorkPushed', at: AT }, { kind: 'clearUpdate' }],
      },
    },
    {
      name: 'work pushed over a head the coordinator updated from spends the update',
      snapshot: snap({ approvedSha: OLD }, UPDATE),
      event: { head: NEW, before: UPDATED, pushedAt: AT },
      expected: {
        pushOfWork: true,
        effects: [{ kind: 'recordWorkPushed', at: AT }, { kind: 'clearUpdate' }],
      },
    },
    {
      name: 'a body whose marker lists other agent configuration files',
      snapshot: snap(),
      event: { head: OLD, body: BODY },
      expected: {
        pushOfWork: false,
        effects: [{ kind: 'recordAgentConfig', paths: ['CLAUDE.md'] }],
      },
    },
    {
      name: 'a body whose marker lists the files recorded: nothing',
      snapshot: snap({}, { agentConfigChanged: ['CLAUDE.md'] }),
      event: { head: OLD, body: BODY },
      expected: { pushOfWork: false, effects: [] },
    },
    {
      name: 'a body without the marker clears files recorded',
      snapshot: snap({}, { agentConfigChanged: ['CLAUDE.md'] }),
      event: { head: OLD, body: 'Work.' },
      expected: { pushOfWork: false, effects: [{ kind: 'recordAgentConfig', paths: [] }] },
    },
    {
      name: 'no body known: the files recorded stand',
      snapshot: snap({}, { agentConfigChanged: ['CLAUDE.md'] }),
      event: { head: OLD },
      expected: { pushOfWork: false, effects: [] },
    },
    {
      name: 'a delivery dating its head (opened): the head recorded with its time',
      snapshot: snap(),
      event: { head: OLD, headArrivedAt: AT },
      expected: {
        pushOfWork: false,
        effects: [{ kind: 'recordDeliveredHead', head: OLD, at: AT }],
      },
    },
    {
      name: 'a push of work dating its head: the head it carries, not GitHub’s now',
      snapshot: snap(),
      event: { head: NEW, before: OLD, pushedAt: AT, headArrivedAt: AT },
      expected: {
        pushOfWork: true,
        effects: [
          { kind: 'recordWorkPushed', at: AT },
          { kind: 'recordDeliveredHead', head: NEW, at: AT },
        ],
      },
    },
    {
      name: 'the coordinator’s own update dating its head: recorded too, though not work',
      snapshot: snap({}, UPDATE),
      event: { head: UPDATED, before: OLD, pushedAt: AT, headArrivedAt: AT },
      expected: {
        pushOfWork: false,
        effects: [{ kind: 'recordDeliveredHead', head: UPDATED, at: AT }],
      },
    },
    {
      name: 'everything at once, in order',
      snapshot: snap({ prNumber: null }, UPDATE),
      event: { head: NEW, before: UPDATED, pushedAt: AT, body: BODY },
      expected: {
        pushOfWork: true,
        effects: [
          { kind: 'recordAgentConfig', paths: ['CLAUDE.md'] },
          { kind: 'recordWorkPushed', at: AT },
          { kind: 'clearUpdate' },
          { kind: 'linkTask', prNumber: 7 },
          { kind: 'requestStatus' },
        ],
      },
    },
  ])('$name', ({ snapshot, event, expected }) => {
    expect(decidePullLink(snapshot, { number: 7, ...event })).toEqual(expected);
  });
});

describe('isAgentPull', () => {
  it.each([
    { name: 'a task branch of this repository', headRepoId: 1, headRef: 'agent/5/api', is: true },
    { name: 'a fork’s task branch', headRepoId: 2, headRef: 'agent/5/api', is: false },
    { name: 'a deleted fork', headRepoId: null, headRef: 'agent/5/api', is: false },
    { name: 'a look-alike branch', headRepoId: 1, headRef: 'agent/5/api/x', is: false },
    { name: 'the planner’s branch', headRepoId: 1, headRef: 'agent/5/plan', is: false },
    { name: 'any other branch', headRepoId: 1, headRef: 'feature', is: false },
  ])('$name', ({ headRepoId, headRef, is }) => {
    expect(isAgentPull({ headRepoId, headRef }, 1)).toBe(is);
  });
});

describe('isOpenedByApp', () => {
  const APP = 'agent-coordinator[bot]';
  it.each([
    { name: 'the App’s bot', userLogin: APP, is: true },
    {
      name: 'the App’s bot, logins compared case-insensitively',
      userLogin: 'Agent-Coordinator[bot]',
      is: true,
    },
    {
      name: 'a person (an outsider opening a PR from a task branch)',
      userLogin: 'outsider',
      is: false,
    },
    { name: 'a maintainer', userLogin: 'maintainer', is: false },
    { name: 'another App’s bot', userLogin: 'github-actions[bot]', is: false },
    { name: 'a person named like the App', userLogin: 'agent-coordinator', is: false },
  ])('$name', ({ userLogin, is }) => {
    expect(isOpenedByApp({ userLogin }, APP)).toBe(is);
  });
});

describe('decideLookAlikePull', () => {
  const closes = (role: string) => [
    { kind: 'close' },
    {
      kind: 'refuse',
      role,
      reason: `pull requests from agent-coordinator task branches are the App's: only people with write access may open one (your role: ${role}), so this one was closed`,
    },
  ];
  it.each([
    {
      name: 'open, by an outsider: closed, its author told',
      state: 'open',
      role: 'read',
      expected: closes('read'),
    },
    {
      name: 'open, by no collaborator: closed',
      state: 'open',
      role: 'none',
      expected: closes('none'),
    },
    {
      name: 'open, by a triager: closed',
      state: 'open',
      role: 'triage',
      expected: closes('triage'),
    },
    ...(['write', 'maintain', 'admin'] as const).map((role) => ({
      name: `open, by ${role}: left open`,
      state: 'open',
      role,
      expected: [
        {
          kind: 'none',
          reason: "opened by someone with write access: left open, never the task's",
        },
      ],
    })),
    {
      name: 'closed already: nothing',
      state: 'closed',
      role: 'read',
      expected: [{ kind: 'none', reason: 'closed already' }],
    },
  ] as const)('$name', ({ state, role, expected }) => {
    expect(decideLookAlikePull({ state }, role)).toEqual(expected);
  });
});

describe('isOpenAppPull', () => {
  const APP = 'agent-coordinator[bot]';
  const pull = { state: 'open', merged: false, headRepoId: 1, userLogin: APP };
  it.each([
    { name: 'the App’s open PR of this repository', over: {}, is: true },
    { name: 'closed', over: { state: 'closed' }, is: false },
    { name: 'merged', over: { merged: true }, is: false },
    { name: 'from another repository', over: { headRepoId: 2 }, is: false },
    { name: 'opened by a person', over: { userLogin: 'a-reader' }, is: false },
  ])('$name', ({ over, is }) => {
    expect(isOpenAppPull({ ...pull, ...over }, 1, APP)).toBe(is);
  });
});
