import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  capacityView,
  fairStarts,
  installationLoads,
  installationRoom,
  repositoriesToHandOff,
  type InstallationLoad,
  type RepositoryLoad,
} from '../../../src/core/scheduler/index.js';

/** `[running, ready]` per installation, ids 1, 2, 3... in order. */
const loads = (...counts: Array<[number, number]>): InstallationLoad[] =>
  counts.map(([running, ready], i) => ({ installationId: i + 1, running, ready }));
const startsOf = (ls: InstallationLoad[], cap: number) => {
  const starts = fairStarts(ls, cap);
  return ls.map((l) => starts.get(l.installationId));
};

describe('fairStarts', () => {
  it.each<{ name: string; loads: InstallationLoad[]; cap: number; starts: number[] }>([
    {
      name: 'a lone installation takes every free slot it can use',
      loads: loads([0, 10]),
      cap: 4,
      starts: [4],
    },
    {
      name: 'two installations that label many issues split the cap evenly',
      loads: loads([0, 10], [0, 10]),
      cap: 4,
      starts: [2, 2],
    },
    {
      name: 'one that needs less than its share leaves the rest to the other',
      loads: loads([0, 10], [0, 1]),
      cap: 4,
      starts: [3, 1],
    },
    {
      name: 'a slot freed by one over its share goes to the one that waits below it',
      loads: loads([3, 10], [0, 1]),
      cap: 4,
      starts: [0, 1],
    },
    {
      name: 'nothing running is stopped: over its share, it gets nothing while the cap is full',
      loads: loads([4, 10], [0, 1]),
      cap: 4,
      starts: [0, 0],
    },
    {
      name: 'the fewest in flight are raised first',
      loads: loads([2, 10], [0, 10], [1, 10]),
      cap: 6,
      starts: [0, 2, 1],
    },
    {
      name: 'a slot left at the last level goes to the lowest installation id',
      loads: loads([0, 10], [0, 10], [0, 10]),
      cap: 4,
      starts: [2, 1, 1],
    },
    {
      name: 'with room for every ready task each starts all it has',
      loads: loads([1, 2], [0, 3]),
      cap: 20,
      starts: [2, 3],
    },
    {
      name: 'no cap: everything ready starts',
      loads: loads([5, 7], [0, 3]),
      cap: Infinity,
      starts: [7, 3],
    },
    {
      name: 'a cap lowered below what runs starts nothing',
      loads: loads([5, 7], [0, 3]),
      cap: 2,
      starts: [0, 0],
    },
    { name: 'no installation', loads: [], cap: 3, starts: [] },
  ])('$name', ({ loads: ls, cap, starts }) => {
    expect(startsOf(ls, cap)).toEqual(starts);
  });

  const generated = fc.record({
    loads: fc.array(fc.tuple(fc.nat(8), fc.nat(8)), { maxLength: 6 }),
    cap: fc.integer({ min: 0, max: 30 }),
  });

  it('never starts past the cap nor past what is ready, and leaves no slot idle that a ready task wants', () => {
    fc.assert(
      fc.property(generated, ({ loads: counts, cap }) => {
        const ls = loads(...counts);
        const starts = startsOf(ls, cap) as number[];
        const running = ls.reduce((s, l) => s + l.running, 0);
        const started = starts.reduce((s, n) => s + n, 0);
        const ready = ls.reduce((s, l) => s + l.ready, 0);
        ls.forEach((l, i) => expect(starts[i]).toBeLessThanOrEqual(l.ready));
        expect(started).toBe(Math.min(ready, Math.max(0, cap - running)));
      }),
    );
  });

  it('is max-min fair: no installation ends more than one above another that still waits', () => {
    fc.assert(
      fc.property(generated, ({ loads: counts, cap }) => {
        const ls = loads(...counts);
        const starts = startsOf(ls, cap) as number[];
        const after = ls.map((l, i) => l.running + starts[i]!);
        ls.forEach((l, i) => {
          if (starts[i]! >= l.ready) return;
          // `i` still waits: whoever started something is at most one above it.
          ls.forEach((_, j) => {
            if (starts[j]! > 0) expect(after[j]).toBeLessThanOrEqual(after[i]! + 1);
          });
        });
      }),
    );
  });
});

const repo = (
  repositoryId: number,
  installationId: number,
  inflight: number,
  ready: number,
  repoLimit: number | null = 10,
): RepositoryLoad => ({ repositoryId, installationId, inflight, ready, repoLimit });

/** A repository the App can no longer reach (src/core/lifecycle/reachability.ts). */
const removed = (load: RepositoryLoad, at = new Date(0)): RepositoryLoad => ({
  ...load,
  access: { removedAt: at, suspendedAt: null },
});
const suspended = (load: RepositoryLoad): RepositoryLoad => ({
  ...load,
  access: { removedAt: null, suspendedAt: new Date(0) },
});

describe('installationLoads', () => {
  it('sums an installation’s repositories, counting ready tasks only as far as their own limit lets them start', () => {
    expect(
      installationLoads([
        repo(1, 7, 1, 10, 2),
        repo(2, 7, 0, 3),
        repo(3, 8, 2, 5, 1),
        repo(4, 8, 0, 4, null),
      ]),
    ).toEqual([
      { installationId: 7, running: 1, ready: 4 },
      { installationId: 8, running: 2, ready: 0 },
    ]);
  });

  it('leaves out a repository the App can no longer reach: its runs end, it holds no share', () => {
    expect(
      installationLoads([
        removed(repo(1, 7, 2, 3)),
        suspended(repo(2, 8, 1, 4)),
        repo(3, 7, 0, 1),
        { ...repo(4, 9, 1, 1), access: { removedAt: null, suspendedAt: null } },
      ]),
    ).toEqual([
      { installationId: 7, running: 0, ready: 1 },
      { installationId: 9, running: 1, ready: 1 },
    ]);
  });
});

describe('installationRoom', () => {
  it.each<{
    name: string;
    repositories: RepositoryLoad[];
    cap: number;
    room: ReturnType<typeof installationRoom>;
  }>([
    {
      name: 'no cap: nothing is shared',
      repositories: [repo(1, 7, 0, 5), repo(2, 8, 0, 5)],
      cap: Infinity,
      room: undefined,
    },
    {
      name: 'a lone installation: the cap alone holds it',
      repositories: [repo(1, 7, 3, 5), repo(2, 7, 0, 5)],
      cap: 4,
      room: undefined,
    },
    {
      name: 'the repository has no load',
      repositories: [repo(2, 8, 0, 5)],
      cap: 4,
      room: undefined,
    },
    {
      name: 'its share while another installation waits',
      repositories: [repo(1, 7, 3, 5), repo(2, 8, 0, 1)],
      cap: 4,
      room: { installationId: 7, room: 0, running: 3, ceiling: 3 },
    },
    {
      name: 'its repositories together',
      repositories: [repo(1, 7, 1, 5), repo(3, 7, 1, 5), repo(2, 8, 0, 5)],
      cap: 6,
      room: { installationId: 7, room: 1, running: 2, ceiling: 3 },
    },
  ])('$name', ({ repositories, cap, room }) => {
    expect(installationRoom(repositories, 1, cap)).toEqual(room);
  });
});

describe('repositoriesToHandOff', () => {
  it.each<{ name: string; repositories: RepositoryLoad[]; cap: number; handOff: number[] }>([
    {
      name: 'the other installation’s repository that may start now',
      repositories: [repo(1, 7, 3, 5), repo(2, 8, 0, 1), repo(5, 8, 0, 0)],
      cap: 4,
      handOff: [2],
    },
    {
      name: 'none while the cap is full',
      repositories: [repo(1, 7, 4, 5), repo(2, 8, 0, 1)],
      cap: 4,
      handOff: [],
    },
    {
      name: 'not one at its own limit',
      repositories: [repo(1, 7, 3, 5), repo(2, 8, 1, 1, 1)],
      cap: 6,
      handOff: [],
    },
    {
      name: 'not the pass’s own installation',
      repositories: [repo(1, 7, 1, 5), repo(3, 7, 0, 5)],
      cap: 6,
      handOff: [],
    },
    {
      name: 'no cap: no hand-off',
      repositories: [repo(1, 7, 1, 5), repo(2, 8, 0, 5)],
      cap: Infinity,
      handOff: [],
    },
    {
      name: 'the pass’s repository unreachable: its own installation’s too, none unreachable',
      repositories: [
        removed(repo(1, 7, 2, 5)),
        repo(3, 7, 0, 5),
        repo(2, 8, 0, 1),
        suspended(repo(4, 9, 0, 5)),
      ],
      cap: 2,
      handOff: [2, 3],
    },
  ])('$name', ({ repositories, cap, handOff }) => {
    expect(repositoriesToHandOff(repositories, 1, cap)).toEqual(handOff);
  });
});

describe('capacityView', () => {
  it('counts what is in flight in the repository and everywhere, with the installation’s share', () => {
    expect(capacityView([repo(1, 7, 3, 5), repo(3, 7, 0, 2), repo(2, 8, 1, 1)], 1, 5)).toEqual({
      inflight: { repository: 3, global: 4 },
      installation: { room: 0, running: 3, ceiling: 3 },
    });
    expect(capacityView([repo(2, 8, 1, 1)], 1, 5)).toEqual({
      inflight: { repository: 0, global: 1 },
    });
  });
});
