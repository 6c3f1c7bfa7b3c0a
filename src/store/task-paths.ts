import { sql } from 'drizzle-orm';
import { runs, tasks } from '../../db/schema.js';
import type { PathClaimant } from '../core/scheduler/index.js';
import { PATH_HOLDING_TASK_STATES, type TaskState } from '../core/states.js';
import { rowsOf, type AppDatabase } from './database.js';
import type { Db } from './transaction.js';

/** A claimant as stored: its run's base branch is null when the run never recorded one. */
export type PathClaimantRow = Omit<PathClaimant, 'base'> & { base: string | null };

const CLAIMING_STATES_SQL = sql.join(
  ['pending', ...PATH_HOLDING_TASK_STATES].map((s) => sql`${s}`),
  sql`, `,
);

/** The paths tasks claim (docs/lifecycle.md, "Overlapping files"): what a scheduling pass reads. */
export class TaskPathStore {
  constructor(private readonly db: AppDatabase) {}

  /** See `pathClaimants`. */
  claimants(repositoryId: number, now: Date): Promise<PathClaimantRow[]> {
    return pathClaimants(this.db, repositoryId, now);
  }

  /**
   * The files the task's PR changes, read at `head`, when they or the head differ from what is
   * recorded; when the files differ the run's status comment is due again, in the same
   * statement. True when the files changed (a new head alone changes nothing the decisions
   * show).
   */
  async recordChangedFiles(
    taskId: number,
    files: readonly string[],
    head: string | null,
  ): Promise<boolean> {
    const value = JSON.stringify([...files].sort());
    // Every part of the statement sees the row as it was: `before` is the files replaced.
    const rows = rowsOf<{ id: string | number }>(
      await this.db.execute(sql`
        with before as (
          select ${tasks.changedFiles} as files from ${tasks} where ${tasks.id} = ${taskId}
        ), recorded as (
          update ${tasks}
             set changed_files = ${value}::jsonb, changed_files_head = ${head}::text,
                 updated_at = case when ${tasks.changedFiles} is distinct from ${value}::jsonb
                                   then ${new Date().toISOString()}::timestamptz
                                   else ${tasks.updatedAt} end
           where ${tasks.id} = ${taskId}
             and (${tasks.changedFiles} is distinct from ${value}::jsonb
               or ${tasks.changedFilesHead} is distinct from ${head}::text)
          returning ${tasks.runId} as run_id
        )
        update ${runs} set status_version_wanted = ${runs.statusVersionWanted} + 1
         where ${runs.id} = (select run_id from recorded)
           and exists (select 1 from before where files is distinct from ${value}::jsonb)
        returning ${runs.id} as id`),
    );
    return rows.length > 0;
  }
}

/**
 * The repository's tasks with files (declared or their PR's), pending or holding paths, of
 * unfinished runs, in the claim's order (priority, oldest run, plan order); `ready` is the
 * claim's ready test. A walk of tasks_paths_idx: none in a repository whose plans declare none.
 */
export async function pathClaimants(
  db: Db,
  repositoryId: number,
  now: Date,
): Promise<PathClaimantRow[]> {
  const rows = rowsOf<{
    id: string | number;
    run_id: string | number;
    task_key: string;
    state: TaskState;
    pr_number: number | null;
    ready: boolean;
    files: string[] | null;
    changed_files: string[] | null;
    base: string | null;
    stack_parent: string | null;
  }>(
    await db.execute(sql`
      select t.id, t.run_id, t.task_key, t.state, t.pr_number, t.files, t.changed_files,
          r.base_branch as base, t.stack_parent,
          -- Core's isDispatchReady, as the claim applies it.
          (t.state = 'pending'
            and (t.unmet_deps = 0 or (t.unmet_deps = 1 and t.stack_parent is not null))
            and (t.next_attempt_at is null or t.next_attempt_at <= ${now.toISOString()}::timestamptz)
            and r.state = 'running') as ready
        from ${tasks} t join ${runs} r on r.id = t.run_id
        where t.repository_id = ${repositoryId}
          and (t.files is not null or t.changed_files is not null)
          and t.state in (${CLAIMING_STATES_SQL})
          and r.finished_at is null and t.task_key <> 'plan'
        order by t.priority desc nulls last, t.run_created_at, t.run_id, t.plan_index`),
  );
  return rows.map((r) => ({
    id: Number(r.id),
    runId: Number(r.run_id),
    taskKey: r.task_key,
    state: r.state,
    prNumber: r.pr_number,
    ready: r.ready,
    files: r.files,
    changedFiles: r.changed_files,
    base: r.base,
    stackParent: r.stack_parent,
  }));
}
