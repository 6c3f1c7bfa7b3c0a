import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { startTestCoordinator, type TestCoordinator } from '../helpers/app.js';

describe.each([
  { name: 'postgres', postgres: true },
  { name: 'pglite', postgres: false },
])('the sweep forgets old deliveries ($name)', ({ postgres }) => {
  let database: TestDatabase | undefined;
  let app: TestCoordinator;

  beforeAll(async () => {
    if (postgres) database = await createTestDatabase(inject('templateDatabase'));
    app = await startTestCoordinator({
      databaseUrl: database?.url,
      // The sweep's redelivery scan asks GitHub first: here it meets a closed port at once.
      githubBaseUrl: 'http://127.0.0.1:1',
    });
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  const store = (id: string, status: string, age: string, availableIn = '0 seconds') =>
    app.store.handle.db.execute(sql`
      insert into webhook_deliveries
        (delivery_id, event, body, status, attempts, received_at, available_at)
      values (${id}, 'issues', ${Buffer.from('{}')}, ${status}::delivery_status, 1,
              now() - ${age}::interval, now() + ${availableIn}::interval)`);

  it('deletes settled deliveries older than 7 days and keeps the rest', async () => {
    await store('old-done', 'done', '8 days');
    await store('old-failed', 'failed', '8 days');
    await store('just-past-done', 'done', '7 days 1 hour');
    await store('recent-done', 'done', '2 days');
    await store('almost-done', 'done', '6 days 23 hours');
    // Still in the inbox, however old: a retry not due yet.
    await store('old-pending', 'pending', '8 days', '1 day');

    expect(await app.sweep()).toBeDefined();
    await app.whenIdle();

    const { deliveries } = app.store;
    for (const id of ['old-done', 'old-failed', 'just-past-done'])
      expect(await deliveries.get(id), id).toBeUndefined();
    expect((await deliveries.get('recent-done'))?.status).toBe('done');
    expect((await deliveries.get('almost-done'))?.status).toBe('done');
    expect((await deliveries.get('old-pending'))?.status).toBe('pending');
    expect(app.logs.text()).not.toContain('could not forget old deliveries');
  });
});
