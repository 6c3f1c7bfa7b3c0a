import pg from 'pg';
import { CONNECTION_MODE_MEANING } from '../../store/connection-mode.js';
import {
  describeLostSession as seen,
  probeSession,
  type SessionProbe,
} from '../../store/connection-probe.js';
import { journalSchema } from '../../store/migrator.js';
import { ok, problem, type Finding } from './report.js';

export interface DatabaseUrls {
  databaseUrl?: string;
  directDatabaseUrl?: string;
}

const POOLER_DOCS = 'docs/running.md, "Through a connection pooler"';

/**
 * How the App reaches its database (src/store/connection-mode.ts), checked by connecting from
 * here as the App does at start (src/store/database.ts): whether DATABASE_URL keeps a session
 * setting sent at connect (a pooler refuses or drops it), whether DIRECT_DATABASE_URL does, and
 * what the role may create for the migrations. Needs the App's DATABASE_URL and
 * DIRECT_DATABASE_URL in the environment.
 */
export async function checkDatabase(urls: DatabaseUrls): Promise<Finding[]> {
  const subject = 'database';
  if (!urls.databaseUrl) return [ok(subject, CONNECTION_MODE_MEANING.embedded)];
  let pooled: SessionProbe;
  try {
    pooled = await probeSession(urls.databaseUrl);
  } catch (error) {
    return [problem(subject, `DATABASE_URL: cannot connect (${(error as Error).message})`)];
  }
  const findings: Finding[] = [];
  if (!urls.directDatabaseUrl) {
    if (pooled.kind !== 'kept')
      return [
        problem(
          subject,
          `DATABASE_URL ${seen(pooled)}: it goes through a pooler, and DIRECT_DATABASE_URL is unset, so the App will not start`,
          `set DIRECT_DATABASE_URL to a URL of the same database on Postgres itself (${POOLER_DOCS})`,
        ),
      ];
    findings.push(ok(subject, CONNECTION_MODE_MEANING.direct));
  } else {
    let direct: SessionProbe;
    try {
      direct = await probeSession(urls.directDatabaseUrl);
    } catch (error) {
      return [
        problem(subject, `DIRECT_DATABASE_URL: cannot connect (${(error as Error).message})`),
      ];
    }
    if (direct.kind !== 'kept')
      return [
        problem(
          subject,
          `DIRECT_DATABASE_URL ${seen(direct)}: it goes through a pooler too, so the App will not start`,
          `point DIRECT_DATABASE_URL at Postgres itself (${POOLER_DOCS})`,
        ),
      ];
    findings.push(
      ok(
        subject,
        `${CONNECTION_MODE_MEANING.pooled}; DATABASE_URL ${
          pooled.kind === 'kept'
            ? 'kept a session setting sent at connect, so it may not be a pooler at all: the App treats it as one anyway'
            : `${seen(pooled)}, as a pooler does`
        }`,
      ),
    );
  }
  findings.push(await checkRole(urls.directDatabaseUrl ?? urls.databaseUrl));
  return findings;
}

/** What the migrations need of the role (docs/running.md, "The database role"). */
async function checkRole(url: string): Promise<Finding> {
  const subject = 'database role';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{
      role: string;
      drizzleExists: boolean;
      canCreateSchema: boolean;
      currentSchema: string | null;
      canCreateInPublic: boolean | null;
    }>(
      `select current_user as role,
              to_regnamespace('drizzle') is not null as "drizzleExists",
              has_database_privilege(current_database(), 'CREATE') as "canCreateSchema",
              current_schema() as "currentSchema",
              -- With two privileges listed, has_schema_privilege answers whether either is held.
              (select has_schema_privilege(oid, 'USAGE') and has_schema_privilege(oid, 'CREATE')
                 from pg_namespace where nspname = 'public') as "canCreateInPublic"`,
    );
    const place = rows[0]!;
    if (!place.canCreateInPublic)
      return problem(
        subject,
        `${place.role} may not create in schema public, where the App's tables are: migrations will fail`,
        `grant it: GRANT USAGE, CREATE ON SCHEMA public TO ${place.role} (docs/running.md, "The database role")`,
      );
    let journal: string;
    try {
      journal = journalSchema(place);
    } catch (error) {
      return problem(subject, (error as Error).message);
    }
    return ok(
      subject,
      `${place.role} may create in schema public; the migration journal is ${journal}.__drizzle_migrations${
        place.canCreateSchema ? '' : ' (no CREATE on the database, none needed)'
      }`,
    );
  } finally {
    await client.end();
  }
}
