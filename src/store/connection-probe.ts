import pg from 'pg';

/**
 * What a URL does with a session setting sent at connect (the startup packet's `options`, which
 * the webhook inbox's connections use, src/store/database.ts):
 * - `kept`: the connection is a session of its own that took the setting (Postgres itself);
 * - `refused`: the pooler refuses the parameter (PgBouncer: "unsupported startup parameter");
 * - `lost`: the pooler accepts it and drops it (PgBouncer with `ignore_startup_parameters =
 *   options`, and poolers like it): the statements run on server connections that never saw it.
 * Either of the last two is a pooler that shares server connections between clients, so nothing
 * a session holds (a setting, a prepared statement, an advisory lock) lasts past a transaction.
 */
export type SessionProbe =
  { kind: 'kept' } | { kind: 'refused'; message: string } | { kind: 'lost' };

/** What a probe that was not `kept` saw, for the start-up error and `doctor`. */
export function describeLostSession(probe: Exclude<SessionProbe, { kind: 'kept' }>): string {
  return probe.kind === 'refused'
    ? `refuses session settings at connect (${probe.message})`
    : 'drops session settings sent at connect';
}

/** One of the inbox's own settings, off for this connection only (its default is on). */
const PROBE_OPTIONS = '-c enable_seqscan=off';

export async function probeSession(url: string): Promise<SessionProbe> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 5_000,
    options: PROBE_OPTIONS,
  });
  try {
    await client.connect();
  } catch (error) {
    const message = (error as Error).message;
    if (/unsupported startup parameter/i.test(message)) return { kind: 'refused', message };
    throw error;
  }
  try {
    const { rows } = await client.query<{ setting: string }>(
      "select current_setting('enable_seqscan') as setting",
    );
    return rows[0]?.setting === 'off' ? { kind: 'kept' } : { kind: 'lost' };
  } finally {
    await client.end();
  }
}
