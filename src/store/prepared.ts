import { createHash } from 'node:crypto';
import { eq, is, Placeholder, SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { AppDatabase } from './database.js';

/** What drizzle's `.prepare(name)` gives: run with the placeholders' values. */
export interface PreparedQuery<Row> {
  execute(values?: Record<string, unknown>): Promise<Row>;
}

/** A drizzle query built with placeholders. */
interface Preparable<Row> {
  prepare(name: string): PreparedQuery<Row>;
}

/**
 * The statements of the hot paths, built once per process and prepared once per connection.
 * drizzle builds a query anew on every call, and building one that names a table's columns
 * costs more of the coordinator's CPU than Postgres takes to run it (about 0.5–1.5 ms for a
 * four-table select against 0.3 ms to run it prepared; bench/README.md). A statement is built
 * with `sql.placeholder` for what varies, under a name that says what it is: one name, one
 * text. Statements inside a transaction are built as before; these run on the pool.
 */
export class PreparedStatements {
  private readonly built = new Map<string, PreparedQuery<unknown>>();

  constructor(private readonly db: AppDatabase) {}

  get<Row>(name: string, build: (db: AppDatabase) => Preparable<Row>): PreparedQuery<Row> {
    let prepared = this.built.get(name) as PreparedQuery<Row> | undefined;
    if (!prepared) {
      prepared = build(this.db).prepare(statementName(name));
      this.built.set(name, prepared as PreparedQuery<unknown>);
    }
    return prepared;
  }

  /**
   * The statement on `db`: on this pool, the one prepared once; in a transaction (whose `db`
   * is another), built anew under the same name, which its connection prepares if it has not.
   */
  on<Db, Row>(db: Db, name: string, build: (db: Db) => Preparable<Row>): PreparedQuery<Row> {
    if ((db as unknown) === this.db)
      return this.get(name, build as unknown as (db: AppDatabase) => Preparable<Row>);
    return build(db).prepare(statementName(name));
  }

  /** `update table set <values> where id = <id>`, one statement per shape of `values`. */
  async updateById(
    name: string,
    table: PgTable,
    idColumn: PgColumn,
    id: number,
    values: Record<string, unknown>,
  ): Promise<void> {
    const { shape, placeholders } = placeholdersFor(values);
    if (shape === '') return;
    await this.get(`${name}_${shape}`, (db) =>
      db
        .update(table)
        .set(placeholders as never)
        .where(eq(idColumn, sql.placeholder('id'))),
    ).execute({ ...values, id });
  }
}

/** Postgres keeps 63 bytes of a name: a long one is shortened, and a hash keeps it unique. */
function statementName(name: string): string {
  const safe = name.replace(/[^a-z0-9_]/gi, '_');
  if (safe.length <= 40) return `ac_${safe}`;
  return `ac_${safe.slice(0, 40)}_${createHash('sha1').update(name).digest('hex').slice(0, 12)}`;
}

/**
 * A placeholder for each value given, named by its key, and the shape (the keys) that names the
 * statement: the same keys, the same text. A null is written as NULL in the text (drizzle would
 * hand it to the column's encoder, which a date column cannot take), so it is part of the shape.
 * A value written as SQL cannot be a placeholder.
 */
export function placeholdersFor<T extends Record<string, unknown>>(
  values: T,
): { shape: string; placeholders: Record<keyof T & string, Placeholder | SQL> } {
  const keys = Object.keys(values)
    .filter((k) => values[k] !== undefined)
    .sort();
  for (const k of keys)
    if (is(values[k], SQL))
      throw new Error(`${k}: an SQL value has no place in a prepared statement`);
  return {
    shape: keys.map((k) => (values[k] === null ? `${k}_null` : k)).join('_'),
    placeholders: Object.fromEntries(
      keys.map((k) => [k, values[k] === null ? sql`null` : sql.placeholder(k)]),
    ) as Record<keyof T & string, Placeholder | SQL>,
  };
}
