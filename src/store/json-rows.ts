import { getTableColumns, type InferSelectModel } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * A table's row as a statement returned it in JSON (`row_to_json`, from a function that must
 * read its own writes: db/migrations/0016), mapped as drizzle maps a selected row: by column
 * name, through each column's own decoder (dates, numerics, bigints).
 */
export function rowFromJson<T extends PgTable>(
  table: T,
  json: Record<string, unknown>,
): InferSelectModel<T> {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = json[column.name];
    if (value === undefined) throw new Error(`${column.name}: not in the returned row`);
    row[key] = value === null ? null : column.mapFromDriverValue(value);
  }
  return row as InferSelectModel<T>;
}
