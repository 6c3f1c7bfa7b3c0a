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
