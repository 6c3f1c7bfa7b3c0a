import pg from 'pg';

/**
 * A client that sends every statement unnamed: through a transaction-mode pooler, consecutive
 * statements of one client run on whichever server connection is free, so a statement prepared
 * under a name on one is missing on the next ("prepared statement … does not exist"), or already
 * there under that name from another client. pg prepares a statement once per client when its
 * query config has a `name` (drizzle's `.prepare(name)`, src/store/prepared.ts); without one,
 * each call parses and plans anew. The pooled URL's pool is given this class as its `Client`
 * (pg-pool's option), so the callers keep their names and lose only the reuse.
 */
export class UnnamedStatementsClient extends pg.Client {
  // pg's query has a dozen overloads; this keeps them all and only rewrites the config.
  override query(...args: unknown[]): never {
    const [config, ...rest] = args;
    const named =
      typeof config === 'object' &&
      config !== null &&
      'name' in config &&
      !('submit' in config) &&
      config.name !== undefined;
    const sent = named ? [{ ...config, name: undefined }, ...rest] : args;
    return (super.query as (...a: unknown[]) => never)(...sent);
  }
}
