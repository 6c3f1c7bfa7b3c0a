import { inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/store/database.js';
import { pgliteTemplate } from './pglite.js';
import { createTestDatabase } from './postgres.js';

export interface EngineUnderTest {
  name: 'postgres' | 'pglite';
  open(): Promise<{ handle: DatabaseHandle; dispose(): Promise<void> }>;
}

/** Store tests run on both engines: the same migrations and queries must serve both. */
export const ENGINES: EngineUnderTest[] = [
  {
    name: 'postgres',
    async open() {
      const database = await createTestDatabase(inject('templateDatabase'));
      const handle = await openDatabase({ databaseUrl: database.url, poolSize: 4 });
      return {
        handle,
        async dispose() {
          await handle.close();
          await database.drop();
        },
      };
    },
  },
  {
    name: 'pglite',
    async open() {
      const handle = await openDatabase({ inMemory: await pgliteTemplate() });
      return { handle, dispose: () => handle.close() };
    },
  },
];
