import { eq, sql } from 'drizzle-orm';
import { installations, repositories } from '../../db/schema.js';
import type { AppDatabase } from './database.js';

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

  private readonly known = new Set<number>();

  /**
   * Record the installation and repository an event names. Cached per process: this runs on
   * every delivery, and the rows change only on installation events.
   */
  async ensureRepository(installationId: number, repo: RepositoryRef): Promise<void> {
    if (this.known.has(repo.id)) return;
    await this.ensureInstallation(installationId);
    await this.upsertRepository(installationId, repo);
    this.known.add(repo.id);
  }

  async upsertRepository(installationId: number, repo: RepositoryRef): Promise<void> {
    await this.db
      .insert(repositories)
      .values({
        id: repo.id,
        installationId,
        owner: repo.owner,
        name: repo.name,
        defaultBranch: repo.defaultBranch ?? null,
      })
      .onConflictDoUpdate({
        target: repositories.id,
        set: {
          installationId,
          owner: repo.owner,
          name: repo.name,
          ...(repo.defaultBranch ? { defaultBranch: repo.defaultBranch } : {}),
          updatedAt: sql`now()`,
        },
      });
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
