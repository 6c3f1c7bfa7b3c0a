import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installations, repositories, runs, tasks } from '../../db/schema.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { PullStore } from '../../src/store/pulls.js';
import { ENGINES } from '../helpers/engines.js';

const REPOSITORY = 2 ** 32 + 7;

/**
 * A PR as a delivery carried it (`asDelivered`: a `pull_request.opened` the engine does not read
 * again) makes the row, and never takes a recorded head, state or merge back to older ones.
 */
describe.each(ENGINES)('PullStore.upsert on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let pulls: PullStore;
  let taskId: number;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    const { db } = handle;
    pulls = new PullStore(db);
    await db.insert(installations).values({ id: 2 ** 33 + 7 });
    await db
      .insert(repositories)
      .values({ id: REPOSITORY, installationId: 2 ** 33 + 7, owner: 'acme', name: 'widgets' });
    const [run] = await db
      .insert(runs)
      .values({ repositoryId: REPOSITORY, issueNumber: 1, config: {}, startedBy: 'm' })
      .returning();
    const [task] = await db
      .insert(tasks)
      .values({ runId: run!.id, taskKey: 'a', planIndex: 0, title: 'A' })
      .returning();
    taskId = task!.id;
  });
  afterAll(() => dispose());

  const seen = (
    number: number,
    headSha: string,
    state = 'open',
    merged = false,
    baseRef = 'main',
  ) => ({
    repositoryId: REPOSITORY,
    number,
    taskId,
    nodeId: `PR_${number}`,
    headRef: 'agent/1/a',
    headSha,
    baseRef,
    state,
    merged,
  });

  it('makes the row of a PR seen first as delivered', async () => {
    const row = await pulls.upsert(seen(20, 'a'.repeat(40)), { asDelivered: true });
    expect(row).toMatchObject({ number: 20, headSha: 'a'.repeat(40), state: 'open', taskId });
  });

  it('leaves a recorded head, state and merge as they were when the delivery is older', async () => {
    // Read from GitHub (a push, then the PR merged), recorded before the late opened delivery.
    await pulls.upsert(seen(21, 'b'.repeat(40), 'closed', true));
    const row = await pulls.upsert(seen(21, 'a'.repeat(40)), { asDelivered: true });
    expect(row).toMatchObject({ headSha: 'b'.repeat(40), state: 'closed', merged: true });
  });

  it('leaves a recorded base as it was when the delivery is older (a stacked PR retargeted)', async () => {
    await pulls.upsert(seen(23, 'a'.repeat(40), 'open', false, 'agent/1/x'));
    const row = await pulls.upsert(seen(23, 'a'.repeat(40)), { asDelivered: true });
    expect(row.baseRef).toBe('agent/1/x');
    const read = await pulls.upsert(seen(23, 'a'.repeat(40), 'open', false, 'main'));
    expect(read.baseRef).toBe('main');
  });

  it('takes a read over the recorded row, as before', async () => {
    await pulls.upsert(seen(22, 'a'.repeat(40)), { asDelivered: true });
    const row = await pulls.upsert(seen(22, 'c'.repeat(40), 'closed'));
    expect(row).toMatchObject({ headSha: 'c'.repeat(40), state: 'closed' });
  });
});
