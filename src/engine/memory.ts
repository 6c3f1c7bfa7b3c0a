import type { ActionsRunOrigin } from '../core/merge/index.js';
import type { RoleName } from '../core/roles.js';
import type { RepoTree } from '../core/scheduler/index.js';

/**
 * What one engine keeps in process between deliveries. Nothing here is state the coordinator
 * depends on across restarts (that lives in Postgres): a cache of GitHub answers and the turns
 * that keep this process's own writes to one object in order.
 */
export interface EngineMemory {
  /** Does `repositoryId:base` use a merge queue (a GraphQL call to find out). */
  readonly mergeQueues: TtlCache<boolean>;
  /** Merge decisions per repository, before its advisory lock (see advanceRun). */
  readonly repositoryMergeTurns: Turns<number>;
  /** Status comment refreshes, one at a time in this process (see refreshStatus). */
  readonly statusTurns: Turns<'all'>;
  /** People's permission on a repository, `owner/repo:login` (see engine/roles.ts). */
  readonly roles: TtlCache<RoleName>;
  /**
   * A base head's tree, `repositoryId@sha` (engine/overlap.ts), with the tasks' claims worked out
   * on it: a sha names its content, so an entry never goes stale; the bound keeps big trees of
   * old heads from piling up.
   */
  readonly trees: TtlCache<Promise<RepoTree>>;
  /**
   * Where a GitHub Actions check suite's workflow run came from, by `check_suite.id` (core's
   * countedChecks): a run's head repository never changes, so an entry never goes stale, and a
   * head's checks read again, or read after the suite's completion event, ask GitHub nothing more.
   */
  readonly actionsRunOrigins: TtlCache<ActionsRunOrigin>;
}

export function createEngineMemory(now: () => Date): EngineMemory {
  return {
    mergeQueues: new TtlCache(5 * 60_000, now),
    repositoryMergeTurns: new Turns(),
    statusTurns: new Turns(),
    roles: new TtlCache(60_000, now, 10_000),
    trees: new TtlCache(60 * 60_000, now, 32),
    actionsRunOrigins: new TtlCache(24 * 60 * 60_000, now, 10_000),
  };
}

export class TtlCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => Date,
    /** Past this many entries the cache starts again empty (its keys come from webhooks). */
    private readonly maxEntries = Infinity,
  ) {}

  get(key: string): T | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.until > this.now().getTime()) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  set(key: string, value: T): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: this.now().getTime() + this.ttlMs });
  }
}

/** Calls for one key run one after another, in the order they were made; keys run side by side. */
export class Turns<K> {
  private readonly tails = new Map<K, Promise<unknown>>();

  async run<T>(key: K, fn: () => Promise<T>): Promise<T> {
    const mine = (this.tails.get(key) ?? Promise.resolve()).then(fn);
    const tail = mine.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with a call in flight or waiting (for tests and shutdown). */
  get size(): number {
    return this.tails.size;
  }
}
