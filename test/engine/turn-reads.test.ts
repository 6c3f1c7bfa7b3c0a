import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { storeWorkload } from '../../bench/scheduling.js';
import { completeOldest, serverApp } from '../../bench/server-path.js';
import { executeCommand } from '../../src/engine/commands.js';
import { loadRunScope } from '../../src/engine/context.js';
import { scheduleRepository } from '../../src/engine/dispatch.js';
import { advanceRun } from '../../src/engine/merge/index.js';
import { refreshStatus } from '../../src/engine/status.js';
import { sweep } from '../../src/engine/sweep.js';
import { openDatabase, rowsOf, type DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { countStatements } from '../../src/store/statement-count.js';
import { createTestDatabase } from '../helpers/postgres.js';

/** Reads of a run's task list, one row per task: its graph, or a merge turn's opening. */
const taskListReads = (texts: string[]) =>
  texts.filter((t) => /(merge_turn_rows|run_graph_rows)\(/.test(t)).length;

/** Reads of the repository's tasks that claim paths (src/store/task-paths.ts). */
const claimantReads = (texts: string[]) =>
  texts.filter((t) => /t\.files is not null/.test(t)).length;

/** Reads of a run's PR rows apart from its graph. */
const pullListReads = (texts: string[]) =>
  texts.filter((t) => /^\s*select\b/i.test(t) && /from "pull_requests"/.test(t)).length;

/** The write budget's statements that name its table (4 of its 7 a write). */
const budgetStatements = (texts: string[]) =>
  texts.filter((t) => /github_write_reservations/.test(t)).length;

/**
 * One read of each fact per turn (STYLE.md 14): a merge turn's stack decisions take the graph the
 * turn read, and a status refresh reads the run's graph and the repository's path claimants
 * once. The counts are pinned: a change that reads again shows here.
 */
describe('reads of a merge turn and of a status refresh', () => {
  let handle: DatabaseHandle;
  let store: Store;
  let drop: () => Promise<void>;
  let app: Awaited<ReturnType<typeof serverApp>>;
  let runId: number;
  const repository = { id: 4343, owner: 'bench', name: 'sched-fleet-30' };

  beforeAll(async () => {
    const database = await createTestDatabase(inject('templateDatabase'));
    handle = await openDatabase({ databaseUrl: database.url, poolSize: 4 });
    drop = database.drop;
    store = createStore(handle);
    // One issue of 30 tasks (5 layers of 6, 2 deps each), stacking on, approvals wanted, and
    // every task declaring the same files: one root at a time is in flight, the others wait.
    await storeWorkload(store, 'fleet', 30, repository.id);
    await handle.db.execute(sql`
      update runs set config = jsonb_set(jsonb_set(config, '{merge,requireApproval}', 'true'),
                                         '{dispatch,stack}', 'true')`);
    await handle.db.execute(sql`update tasks set files = '["src/**"]'::jsonb`);
    app = await serverApp(store, 100);
    await scheduleRepository(app.engine, repository.id);
    // The root completes: its PR waits for approval.
    await completeOldest(app, store, repository, 1);
    const [row] = rowsOf<{ run_id: number }>(
      await handle.db.execute(sql`select run_id from tasks where state = 'in_review'`),
    );
    runId = Number(row!.run_id);
  });
  afterAll(async () => {
    await handle.close();
    await drop();
  });

  const scope = async () => {
    const found = await store.runs.runWithRepository(runId);
    return loadRunScope(app.engine, found!.run, app.github.port, found!.repository);
  };

  it('a merge turn that only waits reads the run’s tasks once, for the merges and the stacks', async () => {
    const known = await scope();
    const counted = await countStatements(() => advanceRun(app.engine, known), { texts: true });
    // The turn's lock and its reads in one statement; nothing to write; the unlock.
    expect(taskListReads(counted.texts)).toBe(1);
    expect(counted.statements).toBe(2);
  });

  it('a status refresh reads the graph and the path claimants once, and the PR rows with the graph', async () => {
    await store.runs.bumpStatus(runId);
    await refreshStatus(app.engine, runId);
    await store.runs.bumpStatus(runId);
    const counted = await countStatements(() => refreshStatus(app.engine, runId), {
      texts: true,
    });
    expect(counted.value).toBe(true);
    expect(taskListReads(counted.texts)).toBe(1);
    expect(claimantReads(counted.texts)).toBe(1);
    expect(pullListReads(counted.texts)).toBe(0);
    // The comment's edit through the write budget: 7 statements.
    expect(budgetStatements(counted.texts)).toBe(4);
    // Lock, run, repository, graph, attempts, spend, in-flight counts, claimants, the rendered
    // version, unlock.
    expect(counted.statements).toBe(10 + 7);
  });

  it('/status reads the run’s graph once, for the command and the comment', async () => {
    const known = await scope();
    const counted = await countStatements(
      () =>
        executeCommand(
          app.engine,
          { scope: known, actor: 'octocat', writtenAt: new Date() },
          { name: 'status' },
        ),
      { texts: true },
    );
    expect(counted.value).toEqual({ ok: true });
    expect(taskListReads(counted.texts)).toBe(1);
    expect(claimantReads(counted.texts)).toBe(1);
    // The status due, then the refresh without the repository's read: 9 statements and the edit.
    expect(budgetStatements(counted.texts)).toBe(4);
    expect(counted.statements).toBe(1 + 1 + 8 + 7);
  });

  it('a sweep reads a base branch’s head once, for its scheduling pass and its status refreshes', async () => {
    await store.runs.bumpStatus(runId);
    const before = app.github.calls.length;
    const report = await sweep(app.engine);
    expect(report.statusWrites).toBe(1);
    const calls = app.github.calls.slice(before);
    // The pass's overlap decision needs the base tree (tasks wait on overlapping files), and so
    // does the status comment, which says on what they wait.
    expect(calls.filter((c) => c === 'repositoryTree').length).toBeLessThanOrEqual(1);
    expect(calls.filter((c) => c === 'branchHead')).toEqual(['branchHead']);
  });
});
