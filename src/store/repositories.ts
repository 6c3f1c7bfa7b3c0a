import { and, asc, eq, inArray, isNotNull, or, sql } from 'drizzle-orm';
import { installations, repositories } from '../../db/schema.js';
import type { AppDatabase } from './database.js';
import { LOCK_KEYS } from './lock-keys.js';
import type { Db } from './transaction.js';

export type RepositoryRow = typeof repositories.$inferSelect;

export interface RepositoryRef {
  id: number;
  owner: string;
  name: string;
  defaultBranch?: string;
}

export class RepositoryStore {
  constructor(private readonly db: AppDatabase) {}

  async upsertInstallation(id: number, suspended = false): Promise<void> {
    const suspendedAt = suspended ? new Date() : null;
    await this.db
      .insert(installations)
      .values({ id, suspendedAt })
      .onConflictDoUpdate({
        target: installations.id,
        set: { suspendedAt, updatedAt: sql`now()` },
      });
  }

  /** Record an installation seen on an event without touching what we already know of it. */
  async ensureInstallation(id: number): Promise<void> {
    await this.db.insert(installations).values({ id }).onConflictDoNothing();
  }

  /** What this process last recorded of each repository, by id. */
  private readonly known = new Map<number, string>();

  /**
   * Record the installation and repository an event names, as the event names them: a
   * repository renamed, transferred, moved to another installation or given another default
   * branch is acted on under what it is now, never under what it was (docs/security.md, "Another
   * installation"). Written only when that differs from what this process last recorded: this
   * runs on every delivery.
   */
  async ensureRepository(installationId: number, repo: RepositoryRef): Promise<void> {
    const seen = JSON.stringify([installationId, repo.owner, repo.name, repo.defaultBranch ?? '']);
    if (this.known.get(repo.id) === seen) return;
    await this.ensureInstallation(installationId);
    await this.upsertRepository(installationId, repo);
    this.known.set(repo.id, seen);
  }

  /**
   * Record the repository as the installation names it. `reachable`: an installation event gave
   * the App the repository (`installation.created`, `installation_repositories.added`): a removal
   * recorded before is undone. Any other delivery leaves a removal as it is (a late one may
   * predate it), unless it names another installation, which holds the repository now. The
   * repository is suspended as long as the installation it is recorded under is.
   */
  async upsertRepository(
    installationId: number,
    repo: RepositoryRef,
    { reachable = false }: { reachable?: boolean } = {},
  ): Promise<void> {
    const suspendedAt = sql`(select ${installations.suspendedAt} from ${installations}
      where ${installations.id} = ${installationId})`;
    await this.db
      .insert(repositories)
      .values({
        id: repo.id,
        installationId,
        owner: repo.owner,
        name: repo.name,
        defaultBranch: repo.defaultBranch ?? null,
        suspendedAt,
      })
      .onConflictDoUpdate({
        target: repositories.id,
        set: {
          installationId,
          owner: repo.owner,
          name: repo.name,
          ...(repo.defaultBranch ? { defaultBranch: repo.defaultBranch } : {}),
          removedAt: reachable
            ? null
            : sql`case when ${repositories.installationId} = ${installationId}
                then ${repositories.removedAt} end`,
          suspendedAt,
          updatedAt: sql`now()`,
        },
      });
  }

  /**
   * GitHub no longer lets the App reach these repositories of the installation (docs/running.md,
   * "Removing the App"): removed from it (`repositoryIds`), or all of them, the installation
   * deleted. A repository recorded under another installation since (moved) is left alone. The
   * ids of the installation's repositories recorded removed now, those removed before included,
   * so that a delivery handled again ends what the first handling did not.
   */
  async recordRemoved(
    installationId: number,
    repositoryIds?: readonly number[],
  ): Promise<number[]> {
    return this.underDispatchLocks(installationId, repositoryIds, async (tx, ids) => {
      const rows = await tx
        .update(repositories)
        .set({ removedAt: sql`coalesce(${repositories.removedAt}, now())`, updatedAt: sql`now()` })
        .where(and(inArray(repositories.id, ids), eq(repositories.installationId, installationId)))
        .returning({ id: repositories.id });
      return rows.map((r) => r.id);
    });
  }

  /**
   * The installation is suspended (`installation.suspend`), or no longer (`unsuspend`): on the
   * installation's row, and on each of its repositories', which the claim and the loads read. The
   * ids of its repositories.
   */
  async recordSuspended(installationId: number, suspended: boolean): Promise<number[]> {
    await this.upsertInstallation(installationId, suspended);
    return this.underDispatchLocks(installationId, undefined, async (tx, ids) => {
      const rows = await tx
        .update(repositories)
        .set({
          suspendedAt: suspended ? sql`coalesce(${repositories.suspendedAt}, now())` : null,
          updatedAt: sql`now()`,
        })
        .where(and(inArray(repositories.id, ids), eq(repositories.installationId, installationId)))
        .returning({ id: repositories.id });
      return rows.map((r) => r.id);
    });
  }

  /**
   * `write` runs on the installation's repositories (those of `repositoryIds`, when given) while
   * their dispatch locks are held, the locks every claim of a repository takes
   * (db/functions/claim_dispatches.sql): a claim that reads the repository as reachable commits
   * before the write, and the run's end that follows finds the tasks it claimed; one that starts
   * after it reads the repository as it is now. Locked in id order, as no claim holds two.
   */
  private async underDispatchLocks(
    installationId: number,
    repositoryIds: readonly number[] | undefined,
    write: (tx: Db, ids: number[]) => Promise<number[]>,
  ): Promise<number[]> {
    return this.db.transaction(async (tx) => {
      const rows = await tx
        .select({ id: repositories.id })
        .from(repositories)
        .where(
          and(
            eq(repositories.installationId, installationId),
            repositoryIds ? inArray(repositories.id, [...repositoryIds]) : undefined,
          ),
        )
        .orderBy(asc(repositories.id));
      const ids = rows.map((r) => r.id);
      if (ids.length === 0) return [];
      const keys = ids.map((id) => LOCK_KEYS.repositoryDispatch(id).toString());
      await tx.execute(sql`select pg_advisory_xact_lock(k::bigint)
        from unnest(${`{${keys.join(',')}}`}::text[]) with ordinality as l(k, n) order by n`);
      return write(tx, ids);
    });
  }

  /**
   * Every repository recorded removed or suspended, with what core's `unreachableBecause` reads:
   * the sweep's one read of which repositories it leaves GitHub alone for.
   */
  async unreachable(): Promise<{ id: number; removedAt: Date | null; suspendedAt: Date | null }[]> {
    return this.db
      .select({
        id: repositories.id,
        removedAt: repositories.removedAt,
        suspendedAt: repositories.suspendedAt,
      })
      .from(repositories)
      .where(or(isNotNull(repositories.removedAt), isNotNull(repositories.suspendedAt)));
  }

  /** Of these repositories, those recorded under the installation, with the name they were last seen by. */
  async ofInstallation(
    installationId: number,
    repositoryIds: readonly number[],
  ): Promise<{ id: number; owner: string; name: string }[]> {
    if (repositoryIds.length === 0) return [];
    return this.db
      .select({ id: repositories.id, owner: repositories.owner, name: repositories.name })
      .from(repositories)
      .where(
        and(
          eq(repositories.installationId, installationId),
          inArray(repositories.id, [...repositoryIds]),
        ),
      )
      .orderBy(asc(repositories.id));
  }

  async getRepository(id: number) {
    const [row] = await this.db.select().from(repositories).where(eq(repositories.id, id));
    return row;
  }

  async getInstallation(id: number) {
    const [row] = await this.db.select().from(installations).where(eq(installations.id, id));
    return row;
  }
}
