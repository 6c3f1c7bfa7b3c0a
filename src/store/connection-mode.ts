/**
 * How the app reaches Postgres (docs/running.md, "Through a connection pooler"):
 * - `embedded`: PGlite under DATA_DIR, one process;
 * - `direct`: DATABASE_URL gives sessions of their own, and everything runs on it;
 * - `pooled`: DATABASE_URL goes through a transaction-mode pooler (DIRECT_DATABASE_URL is set):
 *   queries and transactions run through it, statements unnamed; what needs a session runs on
 *   DIRECT_DATABASE_URL.
 */
export type ConnectionMode = 'embedded' | 'direct' | 'pooled';

/** What each mode can and cannot do, for the start-up log and `doctor`. */
export const CONNECTION_MODE_MEANING: Readonly<Record<ConnectionMode, string>> = {
  embedded: 'embedded PGlite under DATA_DIR: one process only, no replicas',
  direct:
    'DATABASE_URL is a session of its own: migrations, advisory locks, the inbox planner settings and prepared statements all run on it (DIRECT_DATABASE_URL unset)',
  pooled:
    'DATABASE_URL goes through a transaction-mode pooler: queries and transactions run there with unnamed statements (planned on every call); migrations, the locks held across GitHub calls (sweep, merge turns, status comments) and the webhook inbox (its planner settings and prepared statements) run on DIRECT_DATABASE_URL',
};
