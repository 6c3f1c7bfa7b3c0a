import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { storeWorkload } from '../../bench/scheduling.js';
import { completeOldest, serverApp } from '../../bench/server-path.js';
import { executeCommand } from '../../src/engine/commands.js';
import { loadRunScope } from '../../src/engine/context.js';
import { scheduleRepository } from '../../src/engine/dispatch.js';
import { sweep } from '../../src/engine/sweep.js';
import { openDatabase, rowsOf, type DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { countStatements } from '../../src/store/statement-count.js';
import { createTestDatabase } from '../helpers/postgres.js';

/**
 * Statements that return a run's row (its columns in the select list): a delivery reads its run
 * once. The dispatch claim's read of what it claimed returns each claimed task's run along (it
 * may claim other runs' tasks) and is not counted here; it shows in the totals.
 */
const runReads = (texts: string[]) =>
  texts.filter((t) => {
    const [, selected = '', from = ''] = /^\s*select\b(.*?)\bfrom\s+("\w+")/is.exec(t) ?? [];
    return (
      /"issue_number"/.test(selected) &&
      /"plan_approved"/.test(selected) &&
      from !== '"tasks"' &&
      !/"attempts"\."id" = any\(/.test(t)
    );
  }).length;

/** Reads of a run’s task list, one row per task: its graph, or a merge turn’s opening. */
const taskListReads = (texts: string[]) =>
  texts.filter(
    (t) =>
      /(merge_turn_rows|run_graph_rows)\(/.test(t) ||
      (/^\s*select\b/i.test(t) &&
        /from "tasks"/.test(t) &&
        /"tasks"\."run_id" = \$\d+/.test(t) &&
        !/"tasks"\."id" = \$/.test(t)),
  ).length;

/** The write budget's statements that name its table (4 of its 7 a write). */
const budgetStatements = (texts: string[]) =>
  texts.filter((t) => /github_write_reservations/.test(t)).length;

/**
 * What one delivery costs in SQL on the server's own path (the real app and engine, a GitHub
 * answering at once: bench/server-path.ts). A change that reads the run again, or adds a
 * statement, shows here first.
 */
describe('statements of one delivery', () => {
  let handle: DatabaseHandle;
  let store: Store;
  let drop: () => Promise<void>;
  let app: Awaited<ReturnType<typeof serverApp>>;
  const repository = { id: 4242, owner: 'bench', name: 'sched-fleet-30' };

  beforeAll(async () => {
    const database = await createTestDatabase(inject('templateDatabase'));
    handle = await openDatabase({ databaseUrl: database.url, poolSize: 4 });
    drop = database.drop;
    store = createStore(handle);
    // One issue of 30 tasks (5 layers of 6, 2 deps each): the roots are dispatched first.
    await storeWorkload(store, 'fleet', 30, repository.id);
    app = await serverApp(store, 100);
    await scheduleRepository(app.engine, repository.id);
  });
  afterAll(async () => {
    await handle.close();
    await drop();
  });

  it('a workflow completion that merges its PR reads the run once', async () => {
    const [done] = await completeOldest(app, store, repository, 1, { texts: true });
    expect(runReads(done!.texts)).toBe(1);
    // The tasks are read for the merge decision, by the statement that takes the repository's
    // merge lock; whether the run is over comes back with the merge's own write.
    expect(taskListReads(done!.texts)).toBe(1);
    expect(done!.texts.filter((t) => /pg_advisory_lock/.test(t))).toHaveLength(0);
    // The attempt's completion, its PR's row and the move into review are one statement.
    expect(done!.texts.filter((t) => /update "attempts"/.test(t))).toHaveLength(1);
    expect(done!.texts.filter((t) => /insert into "pull_requests"/.test(t))).toHaveLength(1);
    // The PR's new order check is recorded by its merge claim's statement.
    expect(done!.texts.filter((t) => /update "pull_requests"/.test(t))).toHaveLength(1);
    // The scheduling pass asks which tasks claim paths (files:, docs/lifecycle.md): one
    // read of an empty partial index when the plans declare none.
    expect(done!.texts.filter((t) => /t\.files is not null/.test(t))).toHaveLength(1);
    // With COORDINATOR_MAX_PARALLEL set, the pass reads every loaded repository's counts for the
    // installations' shares of it (src/engine/fair-share.ts): one statement.
    expect(
      done!.texts.filter((t) => /from repository_inflight where in_flight > 0/.test(t)),
    ).toHaveLength(1);
    // The PR's order check and its merge, each through the installation's write budget: its
    // transaction (begin, lock, the window's count, the sweep of old rows, the insert, commit)
    // and the stamp once GitHub answered, 7 statements a write.
    expect(done!.writes).toEqual(['createCheckRun', 'mergePull']);
    expect(budgetStatements(done!.texts)).toBe(4 * 2);
    expect(done!.statements).toBe(9 + 7 * 2);
    const [merged] = rowsOf<{ n: number }>(
      await handle.db.execute(sql`select count(*)::int as n from tasks where state = 'merged'`),
    );
    expect(merged?.n).toBe(1);
  });

  it('an /approve of a task in review reads the run once, merges it and dispatches what it frees', async () => {
    // The run now wants approvals: the next completion leaves its PR in review.
    await handle.db.execute(
      sql`update runs set config = jsonb_set(config, '{merge,requireApproval}', 'true')`,
    );
    await completeOldest(app, store, repository, 1);
    const [row] = rowsOf<{ id: number; task_key: string }>(
      await handle.db.execute(
        sql`select r.id, t.task_key from tasks t join runs r on r.id = t.run_id where t.state = 'in_review'`,
      ),
    );
    expect(row).toBeDefined();
    // The PR's `opened` delivery, which this GitHub never sends, dated its head: a plain
    // /approve approves no other (commandApproval).
    await handle.db.execute(
      sql`update pull_requests set delivered_head = head_sha, delivered_head_at = now()`,
    );
    const dispatchedBefore = app.github.dispatches;
    const writesBefore = app.github.writes.length;
    // As the comment handler does: the run with its repository, the PR's task; then the command.
    const counted = await countStatements(
      async () => {
        const found = await store.runs.runWithRepository(Number(row!.id));
        const scope = await loadRunScope(
          app.engine,
          found!.run,
          app.github.port,
          found!.repository,
        );
        const task = await store.runs.task(found!.run.id, row!.task_key);
        return executeCommand(
          app.engine,
          { scope, task, actor: 'octocat', writtenAt: new Date() },
          { name: 'approve' },
        );
      },
      { texts: true },
    );
    expect(counted.value).toEqual({ ok: true });
    expect(runReads(counted.texts)).toBe(1);
    // The merge frees a dependent, which is dispatched in the same delivery: the claim and the
    // read of what it claimed are one statement (claim_dispatch_rows), the dispatch's record one.
    expect(app.github.dispatches - dispatchedBefore).toBe(1);
    expect(counted.texts.filter((t) => /claim_dispatch/.test(t))).toHaveLength(1);
    // With the read of the tasks that claim paths (files:), none here, before the claim.
    expect(counted.texts.filter((t) => /t\.files is not null/.test(t))).toHaveLength(1);
    // And the read of the loads the installations' shares are decided from.
    expect(
      counted.texts.filter((t) => /from repository_inflight where in_flight > 0/.test(t)),
    ).toHaveLength(1);
    const writes = app.github.writes.slice(writesBefore);
    // The head's order check brought to success by the approval, then the merge, the freed
    // task's branch and its dispatch: 7 statements each.
    expect(writes).toEqual(['updateCheckRun', 'mergePull', 'ensureBranch', 'dispatchWorkflow']);
    expect(budgetStatements(counted.texts)).toBe(4 * writes.length);
    expect(counted.statements).toBe(13 + 7 * writes.length);
  });

  it('a sweep reads each repository once and the active runs once, however many attempts are open', async () => {
    const open = await store.attempts.open();
    expect(open.length).toBeGreaterThan(1);
    const counted = await countStatements(() => sweep(app.engine), { texts: true });
    const reads = (pattern: RegExp) =>
      counted.texts.filter((t) => /^\s*select\b/i.test(t) && pattern.test(t)).length;
    // Which repositories the App can no longer reach: one read, whatever their number.
    expect(reads(/from "repositories" where \("repositories"."removed_at" is not null/)).toBe(1);
    expect(reads(/from "repositories"/)).toBe(2);
    expect(reads(/from "runs" where "runs"."finished_at" is null/)).toBe(1);
  });
});
