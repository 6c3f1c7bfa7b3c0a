import type { AppDatabase } from './database.js';

/** drizzle's transaction object has the same query API as the database. */
export type Tx = Parameters<Parameters<AppDatabase['transaction']>[0]>[0];
/** What a statement runs on: the database, or a transaction a caller began. */
export type Db = AppDatabase | Tx;
