import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installations, pullRequests, repositories, runs, tasks } from '../../db/schema.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { PullStore } from '../../src/store/pulls.js';
import { ENGINES } from '../helpers/engines.js';

const REPOSITORY = 2 ** 32 + 5;

/**
 * What the status comment shows of a PR — the agent configuration it changes, GitHub's refusal to
 * update it — is recorded once per change, and the status made due.
 */
describe.each(ENGINES)('PullStore.recordAgentConfig, recordUpdateRefusal on $name', (engine) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let pulls: PullStore;
  let runId: number;
  let taskId: number;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    const { db } = handle;
    pulls = new PullStore(db);
    await db.insert(installations).values({ id: 2 ** 33 + 5 });
    await db
      .insert(repositories)
      .values({ id: REPOSITORY, installationId: 2 ** 33 + 5, owner: 'acme', name: 'widgets' });
    const [run] = await db
      .insert(runs)
      .values({ repositoryId: REPOSITORY, issueNumber: 1, config: {}, startedBy: 'm' })
      .returning();
    runId = run!.id;
    const [task] = await db
      .insert(tasks)
      .values({ runId, taskKey: 'a', planIndex: 0, title: 'A' })
      .returning();
    taskId = task!.id;
  });
  afterAll(() => dispose());

  const wanted = async () =>
    (await handle.db.select().from(runs).where(eq(runs.id, runId)))[0]!.statusVersionWanted;

  it('starts empty, changes once per new list, and leaves a repeat alone', async () => {
    const row = await pulls.upsert({
      repositoryId: REPOSITORY,
      number: 12,
      taskId,
      headRef: 'agent/1/a',
      headSha: 'a'.repeat(40),
      baseRef: 'main',
      state: 'open',
    });
    expect(row.agentConfigChanged).toEqual([]);
    const before = await wanted();

    const paths = ['.claude/settings.json', '.claude/a,b c-->.md'];
    expect(await pulls.recordAgentConfig(row.id, runId, paths)).toBe(true);
    expect(await wanted()).toBe(before + 1);
    expect(await pulls.recordAgentConfig(row.id, runId, [...paths])).toBe(false);
    expect(await wanted()).toBe(before + 1);
    const [stored] = await pulls.ofRun(runId);
    expect(stored!.agentConfigChanged).toEqual(paths);

    // A later sighting of the PR without its body keeps what was recorded.
    const seen = await pulls.upsert({
      repositoryId: REPOSITORY,
      number: 12,
      taskId,
      headRef: 'agent/1/a',
      headSha: 'b'.repeat(40),
      baseRef: 'main',
      state: 'open',
    });
    expect(seen.agentConfigChanged).toEqual(paths);

    expect(await pulls.recordAgentConfig(row.id, runId, [])).toBe(true);
    expect(await wanted()).toBe(before + 2);
    const rows = await handle.db.select().from(pullRequests).where(eq(pullRequests.id, row.id));
    expect(rows[0]!.agentConfigChanged).toEqual([]);
  });

  it('records an update refusal once per head; a new head is recorded anew', async () => {
    const row = await pulls.upsert({
      repositoryId: REPOSITORY,
      number: 13,
      taskId,
      headRef: 'agent/1/a',
      headSha: 'c'.repeat(40),
      baseRef: 'main',
      state: 'open',
    });
    expect(row).toMatchObject({ updateRefusedSha: null, updateRefusedMessage: null });
    const before = await wanted();
    const refused = 'refusing to allow a GitHub App to create or update workflow x.yml';
    expect(await pulls.recordUpdateRefusal(row.id, runId, 'c'.repeat(40), refused)).toBe(true);
    expect(await wanted()).toBe(before + 1);
    expect(await pulls.recordUpdateRefusal(row.id, runId, 'c'.repeat(40), 'again')).toBe(false);
    expect(await wanted()).toBe(before + 1);
    const read = async () =>
      (await handle.db.select().from(pullRequests).where(eq(pullRequests.id, row.id)))[0]!;
    expect(await read()).toMatchObject({
      updateRefusedSha: 'c'.repeat(40),
      updateRefusedMessage: refused,
    });
    expect(await pulls.recordUpdateRefusal(row.id, runId, 'd'.repeat(40), 'later')).toBe(true);
    expect(await wanted()).toBe(before + 2);
    expect(await read()).toMatchObject({ updateRefusedSha: 'd'.repeat(40) });
  });
});
