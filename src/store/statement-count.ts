import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'drizzle-orm';

/**
 * SQL statements sent to the database, counted where they are sent, through public hooks only:
 * drizzle's `logger` option for every statement drizzle sends (transaction control included on
 * node-postgres, where drizzle sends BEGIN and COMMIT itself), and a call of `noteStatement` by
 * the database handle for each statement it sends without drizzle (locks, the inbox, PGlite's
 * BEGIN and COMMIT: src/store/database.ts). A string of several statements sent in one call
 * counts once. Each `countStatements` call counts what its own asynchronous work sends, so
 * deliveries handled side by side are told apart; scopes nest, and a statement counts in every
 * scope it runs inside.
 */
interface Scope {
  statements: number;
  /** The statements' SQL, when the caller asked for it (tests that say which reads happen). */
  readonly texts: string[] | undefined;
  readonly parent: Scope | undefined;
}

const current = new AsyncLocalStorage<Scope>();

/** Called by the database handle for each statement it sends. */
export function noteStatement(query?: unknown): void {
  for (let scope = current.getStore(); scope; scope = scope.parent) {
    scope.statements++;
    scope.texts?.push(sqlText(query));
  }
}

/** drizzle's logger (its `logger` option): called as each statement it sends is executed. */
export const statementLogger: Logger = {
  logQuery: (query) => noteStatement(query),
};

function sqlText(query: unknown): string {
  if (typeof query === 'string') return query;
  if (query && typeof query === 'object' && 'text' in query) return String(query.text);
  return '';
}

/**
 * Runs `fn` and counts the statements it sent, its callbacks and timers included (until it
 * settles: work it leaves running afterwards still counts, into a total nobody reads).
 */
export async function countStatements<T>(
  fn: () => PromiseLike<T>,
  options: { texts?: boolean } = {},
): Promise<{ value: T; statements: number; texts: string[] }> {
  const scope: Scope = {
    statements: 0,
    texts: options.texts ? [] : undefined,
    parent: current.getStore(),
  };
  const value = await current.run(scope, inScope(fn));
  return { value, statements: scope.statements, texts: scope.texts ?? [] };
}

/** Like countStatements, for a caller that needs the count whether `fn` succeeds or throws. */
export async function countStatementsSettled<T>(
  fn: () => PromiseLike<T>,
  record: (statements: number) => void,
): Promise<T> {
  const scope: Scope = { statements: 0, texts: undefined, parent: current.getStore() };
  try {
    return await current.run(scope, inScope(fn));
  } finally {
    record(scope.statements);
  }
}

/**
 * Awaits `fn`'s result inside the scope: a drizzle query is a lazy thenable that starts only when
 * awaited, and awaited outside, its statement would count outside.
 */
function inScope<T>(fn: () => PromiseLike<T>): () => Promise<T> {
  return async () => await fn();
}
