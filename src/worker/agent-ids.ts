import { randomInt } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { run } from './root-commands.js';

/**
 * Where an agent user's uid (and its group's gid, the same number) comes from (docs/worker.md,
 * "The agent's user"). `useradd --system` hands the lowest free system uid out, so the next agent
 * got the uid of the one just removed, and with it whatever that one left where the worker does
 * not sweep (any folder every user may write, a persistent keyring): each agent gets a number drawn
 * at random from a range no distribution, `useradd` or subordinate-id allocation (/etc/subuid,
 * 100000–600100000 by default) hands out — systemd's docs/UIDS-GIDS.md calls
 * 1879048192–2147352575 unused — and that no user or group has. A user namespace that maps only
 * the low ids (a rootless container maps 65536) gets systemd's unused 60578–61183.
 */
const ID_RANGES: readonly (readonly [number, number])[] = [
  [1_879_048_192, 2_147_352_575],
  [60_578, 61_183],
];

/** How many numbers to try: another agent user made at the same moment may take one first. */
const TRIES = 5;

/**
 * Runs `create(id)`, the argv that makes the agent's user with uid `id` and a group of its own
 * with gid `id`, for a fresh `id`; returns it.
 */
export async function createWithFreshId(create: (id: number) => string[]): Promise<number> {
  const [first, last] = await usableRange();
  let said = '';
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const id = randomInt(first, last + 1);
    if (!(await unknown('passwd', id)) || !(await unknown('group', id))) continue;
    const result = await run(create(id));
    if (result.code === 0) return id;
    said = `${create(id).join(' ')} exited with ${result.code}: ${result.stderr.trim()}`;
  }
  throw new Error(`could not create the agent user: ${said || 'every number drawn was taken'}`);
}

/** No user (group) in any database the system reads has `id`: getent's "not found" is 2. */
async function unknown(database: 'passwd' | 'group', id: number): Promise<boolean> {
  return (await run(['getent', database, String(id)])).code === 2;
}

/** The first of ID_RANGES that this process's user namespace maps whole, for uids and gids. */
async function usableRange(): Promise<readonly [number, number]> {
  const maps = await Promise.all(['uid_map', 'gid_map'].map((f) => idMap(`/proc/self/${f}`)));
  const range = ID_RANGES.find(([first, last]) =>
    maps.every((map) => map.some(([start, count]) => start <= first && last < start + count)),
  );
  if (!range)
    throw new Error(
      `could not create the agent user: this user namespace maps none of ${ID_RANGES.map((r) => r.join('–')).join(', ')}`,
    );
  return range;
}

/** The ids a user namespace map (/proc/self/uid_map) gives, as [first, count]; all without one. */
async function idMap(file: string): Promise<[number, number][]> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return [[0, 2 ** 32]];
  return text
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .map(([inside, , count]) => [inside ?? 0, count ?? 0]);
}
