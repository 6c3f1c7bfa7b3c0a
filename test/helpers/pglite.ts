import { openAsBlob } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { inject } from 'vitest';
import { migrationsFolder } from '../../src/store/database.js';

/**
 * One migrated PGlite data directory, dumped to a file once for every test file. A new PGlite
 * creates its data directory (initdb) in 4 to 10 s on a busy 2-core machine; one loaded from the
 * dump starts in about a second and a half. openDatabase still applies the migrations, so a
 * dump that lacked one would get it.
 */
export async function preparePgliteTemplate(): Promise<{ path: string; remove(): Promise<void> }> {
  const client = new PGlite();
  try {
    await migrate(drizzle(client), { migrationsFolder: migrationsFolder() });
    const dump = await client.dumpDataDir('none');
    const path = join(tmpdir(), `ac-pglite-template-${process.pid}.tar`);
    await writeFile(path, Buffer.from(await dump.arrayBuffer()));
    return { path, remove: () => rm(path, { force: true }) };
  } finally {
    await client.close();
  }
}

/**
 * `inMemory` for openDatabase (`inMemoryDatabase` for startCoordinator): the migrated dump in a
 * test, a new data directory elsewhere (a benchmark has no global setup).
 */
export async function pgliteTemplate(): Promise<{ from: Blob } | true> {
  if (!process.env.VITEST) return true;
  return { from: await openAsBlob(inject('pgliteTemplate')) };
}
