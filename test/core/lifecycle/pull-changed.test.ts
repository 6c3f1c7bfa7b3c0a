import { describe, expect, it } from 'vitest';
import {
  decidePullChanged,
  type PullChangedEffect,
  type PullChangedEvent,
  type PullChangedSnapshot,
} from '../../../src/core/lifecycle/index.js';

const HEAD = 'c0ffee0123456789abcdef0123456789abcdef01';
const OLD = 'a'.repeat(40);
const T0 = new Date('2026-01-01T10:00:00Z');
const later = (s: number) => new Date(T0.getTime() + s * 1000);

/** Files recorded at the PR's head (HEAD), at an earlier head (OLD), or none read yet. */
const current = { changedFiles: ['src/a.ts'], changedFilesHead: HEAD };
const earlier = { changedFiles: ['src/a.ts'], changedFilesHead: OLD };
const none = { changedFiles: null, changedFilesHead: null };

const snap = (
  over: Partial<Omit<PullChangedSnapshot, 'task'>> & {
    task?: Partial<PullChangedSnapshot['task']>;
  } = {},
): PullChangedSnapshot => ({
  runFinished: false,
  pushOfWork: false,
  changedFiles: current,
  ...over,
  task: { state: 'in_review', approvedSha: null, approvedAt: null, ...over.task },
});
/** A plain `/approve` of OLD written at T0. */
const approvedAtT0 = { state: 'approved', approvedSha: OLD, approvedAt: T0 } as const;
const REPLY =
  'The `/approve` of `aaaaaaa` was written before new commits reached this pull request: it does not count for its head `c0ffee0`. Review it and `/approve` again, or `/approve c0ffee0`.';
const advance: PullChangedEffect = { kind: 'advance' };
const recordFiles: PullChangedEffect = { kind: 'recordChangedFiles' };

/** docs/lifecycle.md steps 8–9: an agent PR opened, pushed to, edited or marked ready. */
describe('decidePullChanged', () => {
  it.each<{
    name: string;
    snapshot: PullChangedSnapshot | null;
    event?: Partial<PullChangedEvent>;
    expected: PullChangedEffect[];
  }>([
    {
      name: 'no agent PR of a known task',
      snapshot: null,
      expected: [{ kind: 'none', reason: 'not an agent PR of a known task' }],
    },
    {
      name: 'the run is finished',
      snapshot: snap({ runFinished: true, pushOfWork: true }),
      event: { pushedAt: later(5) },
      expected: [{ kind: 'none', reason: 'the run is finished' }],
    },
    { name: 'opened: merges are decided again', snapshot: snap(), expected: [advance] },
    {
      name: 'opened with no changed files recorded: they are read first',
      snapshot: snap({ changedFiles: none }),
      expected: [recordFiles, advance],
    },
    {
      name: 'a push (files recorded at the head before it): they are read again',
      snapshot: snap({ changedFiles: earlier }),
      expected: [recordFiles, advance],
    },
    {
      name: 'a late push delivery whose head’s files were read already (the sweep): not again',
      snapshot: snap({ changedFiles: current }),
      expected: [advance],
    },
    {
      name: 'files recorded at a head not kept: read again once',
      snapshot: snap({ changedFiles: { changedFiles: ['src/a.ts'], changedFilesHead: null } }),
      expected: [recordFiles, advance],
    },
    {
      name: 'a push of work after a plain /approve: files read, approval withdrawn, merges',
      snapshot: snap({ pushOfWork: true, task: approvedAtT0, changedFiles: earlier }),
      event: { pushedAt: later(5) },
      expected: [
        recordFiles,
        { kind: 'withdrawApproval', move: 'approval withdrawn', reply: REPLY },
        advance,
      ],
    },
    {
      name: 'a push to the PR of a finished run reads nothing',
      snapshot: snap({ runFinished: true, changedFiles: none }),
      expected: [{ kind: 'none', reason: 'the run is finished' }],
    },
    {
      name: 'the coordinator’s own update keeps the approval',
      snapshot: snap({ task: approvedAtT0 }),
      event: { pushedAt: later(5) },
      expected: [advance],
    },
    {
      name: 'new work pushed after a plain /approve withdraws it (in review: a move)',
      snapshot: snap({ pushOfWork: true, task: approvedAtT0 }),
      event: { pushedAt: later(5) },
      expected: [{ kind: 'withdrawApproval', move: 'approval withdrawn', reply: REPLY }, advance],
    },
    {
      name: 'before review the approval waits on the task: fields only',
      snapshot: snap({ pushOfWork: true, task: { ...approvedAtT0, state: 'running' } }),
      event: { pushedAt: later(5) },
      expected: [{ kind: 'withdrawApproval', reply: REPLY }, advance],
    },
    {
      name: 'work pushed before the /approve was written leaves it',
      snapshot: snap({ pushOfWork: true, task: approvedAtT0 }),
      event: { pushedAt: later(-5) },
      expected: [advance],
    },
    {
      name: 'an approval naming its commit (a review, /approve <sha>) is never withdrawn here',
      snapshot: snap({ pushOfWork: true, task: { ...approvedAtT0, approvedAt: null } }),
      event: { pushedAt: later(5) },
      expected: [advance],
    },
    {
      name: 'a push GitHub does not date withdraws nothing',
      snapshot: snap({ pushOfWork: true, task: approvedAtT0 }),
      expected: [advance],
    },
  ])('$name', ({ snapshot, event, expected }) => {
    expect(decidePullChanged(snapshot, { head: HEAD, ...event })).toEqual(expected);
  });
});
