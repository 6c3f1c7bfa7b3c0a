import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import {
  attempts,
  commands,
  pullRequests,
  repositories,
  runs,
  taskEdges,
  tasks,
} from '../../db/schema.js';
import type { RunState, TaskState } from '../core/states.js';
import { rowsOf, type AppDatabase } from '../store/database.js';
import { countReady } from '../store/metrics-queries.js';
import { graphTask } from '../store/runs.js';

// Read-only views of the coordinator's tables for the dashboard. Several replicas may share
// the database, so everything shown is read from it, never from one process's memory.

export interface RunSummary {
  id: number;
  owner: string;
  repo: string;
  issueNumber: number;
  issueTitle: string;
  generation: number;
  state: RunState;
  held: boolean;
  startedBy: string;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  spendUsd: number;
  budgetUsd: number | undefined;
  taskCounts: Partial<Record<TaskState, number>>;
  taskTotal: number;
  /** Pending tasks the scheduler could dispatch now, waiting for a worker slot. */
  readyCount: number;
}

export interface TaskView {
  id: number;
  key: string;
  title: string;
  type: string;
  state: TaskState;
  priority: number;
  deps: string[];
  attemptCount: number;
  held: boolean;
  vetoReason: string | null;
  prNumber: number | null;
  lastRunUrl: string | null;
  costUsd: number;
  updatedAt: Date;
}

export interface AttemptView {
  taskKey: string;
  attempt: number;
  mode: string;
  phase: string;
  conclusion: string | null;
  failureReason: string | null;
  workflowRunUrl: string | null;
  intentAt: Date;
  dispatchedAt: Date | null;
  startedAt: Date | null;
  completedAt: Date | null;
  costUsd: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
}

export interface CommandView {
  id: number;
  issueNumber: number;
  actorLogin: string;
  permission: string | null;
  name: string;
  args: unknown;
  accepted: boolean;
  outcome: string | null;
  createdAt: Date;
}

export interface RunDetail {
  run: RunSummary & {
    planSource: string | null;
    planError: string | null;
    holdReason: string | null;
    baseBranch: string | null;
  };
  tasks: TaskView[];
  attempts: AttemptView[];
  commands: CommandView[];
}

const RUN_LIST_LIMIT = 200;

const spendOfRun = sql<string>`(select coalesce(sum(a.cost_usd), 0) from ${attempts} a
  join ${tasks} t on t.id = a.task_id where t.run_id = ${runs.id})`;

function budgetOf(config: unknown): number | undefined {
  const budget = (config as { budget?: { maxCostUsdPerRun?: unknown } } | null)?.budget;
  return typeof budget?.maxCostUsdPerRun === 'number' ? budget.maxCostUsdPerRun : undefined;
}

const runColumns = {
  id: runs.id,
  owner: repositories.owner,
  repo: repositories.name,
  issueNumber: runs.issueNumber,
  issueTitle: runs.issueTitle,
  generation: runs.generation,
  state: runs.state,
  held: runs.held,
  startedBy: runs.startedBy,
  createdAt: runs.createdAt,
  updatedAt: runs.updatedAt,
  finishedAt: runs.finishedAt,
  config: runs.config,
  planSource: runs.planSource,
  planError: runs.planError,
  holdReason: runs.holdReason,
  baseBranch: runs.baseBranch,
  spend: spendOfRun,
};

function selectRuns(db: AppDatabase) {
  return db
    .select(runColumns)
    .from(runs)
    .innerJoin(repositories, eq(repositories.id, runs.repositoryId));
}

type RunRow = Awaited<ReturnType<typeof selectRuns>>[number];

interface RunTaskCounts {
  byState: Partial<Record<TaskState, number>>;
  ready: number;
}

function summary(row: RunRow, counts: Map<number, RunTaskCounts>): RunSummary {
  const taskCounts = counts.get(row.id)?.byState ?? {};
  return {
    id: row.id,
    owner: row.owner,
    repo: row.repo,
    issueNumber: row.issueNumber,
    issueTitle: row.issueTitle,
    generation: row.generation,
    state: row.state,
    held: row.held,
    startedBy: row.startedBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    finishedAt: row.finishedAt,
    spendUsd: Number(row.spend),
    budgetUsd: budgetOf(row.config),
    taskCounts,
    taskTotal: Object.values(taskCounts).reduce((a, b) => a + (b ?? 0), 0),
    readyCount: counts.get(row.id)?.ready ?? 0,
  };
}

export class DashboardQueries {
  constructor(private readonly db: AppDatabase) {}

  /** Active runs first, then the most recently changed; across every repository. */
  async listRuns(limit = RUN_LIST_LIMIT): Promise<RunSummary[]> {
    const rows = await selectRuns(this.db)
      .orderBy(sql`${runs.finishedAt} is null desc`, desc(runs.updatedAt), desc(runs.id))
      .limit(limit);
    const counts = await this.taskCounts(rows.map((r) => r.id));
    return rows.map((row) => summary(row, counts));
  }

  async runDetail(runId: number): Promise<RunDetail | undefined> {
    const [row] = await selectRuns(this.db).where(eq(runs.id, runId));
    if (!row) return undefined;
    const counts = await this.taskCounts([row.id]);
    const [taskRows, edgeRows, attemptRows, prRows, commandRows] = await Promise.all([
      this.db
        .select()
        .from(tasks)
        .where(and(eq(tasks.runId, runId), graphTask))
        .orderBy(asc(tasks.planIndex)),
      this.db.select().from(taskEdges).where(eq(taskEdges.runId, runId)),
      this.db
        .select({ attempt: attempts, taskKey: tasks.taskKey })
        .from(attempts)
        .innerJoin(tasks, eq(tasks.id, attempts.taskId))
        .where(and(eq(tasks.runId, runId), graphTask))
        .orderBy(asc(attempts.intentAt), asc(attempts.id)),
      this.db
        .select({ taskId: pullRequests.taskId, number: pullRequests.number })
        .from(pullRequests)
        .innerJoin(tasks, eq(tasks.id, pullRequests.taskId))
        .where(eq(tasks.runId, runId))
        .orderBy(asc(pullRequests.number)),
      this.db
        .select()
        .from(commands)
        .where(eq(commands.runId, runId))
        .orderBy(asc(commands.createdAt), asc(commands.id)),
    ]);
    const deps = new Map<string, string[]>();
    for (const edge of edgeRows) {
      const list = deps.get(edge.taskKey) ?? [];
      list.push(edge.dependsOn);
      deps.set(edge.taskKey, list);
    }
    const prOf = new Map<number, number>();
    for (const pr of prRows) if (pr.taskId !== null) prOf.set(pr.taskId, pr.number);
    const attemptViews: AttemptView[] = attemptRows.map(({ attempt: a, taskKey }) => ({
      taskKey,
      attempt: a.attempt,
      mode: a.mode,
      phase: a.phase,
      conclusion: a.conclusion,
      failureReason: a.failureReason,
      workflowRunUrl: a.workflowRunUrl,
      intentAt: a.intentAt,
      dispatchedAt: a.dispatchedAt,
      startedAt: a.startedAt,
      completedAt: a.completedAt,
      costUsd: a.costUsd === null ? null : Number(a.costUsd),
      inputTokens: a.inputTokens,
      outputTokens: a.outputTokens,
    }));
    const byTask = new Map<number, (typeof attemptRows)[number]['attempt'][]>();
    for (const { attempt: a } of attemptRows) {
      const list = byTask.get(a.taskId) ?? [];
      list.push(a);
      byTask.set(a.taskId, list);
    }
    const taskViews: TaskView[] = taskRows.map((t) => {
      const own = byTask.get(t.id) ?? [];
      const latestWithRun = [...own].reverse().find((a) => a.workflowRunUrl);
      return {
        id: t.id,
        key: t.taskKey,
        title: t.title,
        type: t.type,
        state: t.state,
        priority: t.priority,
        deps: (deps.get(t.taskKey) ?? []).sort(),
        attemptCount: t.attemptCount,
        held: t.held,
        vetoReason: t.vetoReason,
        prNumber: t.prNumber ?? prOf.get(t.id) ?? null,
        lastRunUrl: latestWithRun?.workflowRunUrl ?? null,
        costUsd: own.reduce((sum, a) => sum + Number(a.costUsd ?? 0), 0),
        updatedAt: t.updatedAt,
      };
    });
    return {
      run: {
        ...summary(row, counts),
        planSource: row.planSource,
        planError: row.planError,
        holdReason: row.holdReason,
        baseBranch: row.baseBranch,
      },
      tasks: taskViews,
      attempts: attemptViews,
      commands: commandRows.map((c) => ({
        id: c.id,
        issueNumber: c.issueNumber,
        actorLogin: c.actorLogin,
        permission: c.permission,
        name: c.name,
        args: c.args,
        accepted: c.accepted,
        outcome: c.outcome,
        createdAt: c.createdAt,
      })),
    };
  }

  /**
   * A value that changes whenever anything the run page shows changes: the run row, its
   * tasks, attempts, pull requests and commands. Polled by the live-update stream.
   */
  async runVersion(runId: number): Promise<string | undefined> {
    const result = await this.db.execute<{ v: string | null }>(sql`
      select concat_ws('|',
        r.status_version_wanted, r.updated_at, r.finished_at,
        (select max(t.updated_at) from ${tasks} t where t.run_id = r.id),
        (select concat(count(*), ':', max(greatest(a.intent_at, a.dispatched_at, a.started_at, a.completed_at)), ':', sum(a.cost_usd), ':', string_agg(a.phase, ''))
           from ${attempts} a join ${tasks} t on t.id = a.task_id where t.run_id = r.id),
        (select max(p.updated_at) from ${pullRequests} p join ${tasks} t on t.id = p.task_id where t.run_id = r.id),
        (select max(c.id) from ${commands} c where c.run_id = r.id)
      ) as v
      from ${runs} r where r.id = ${runId}`);
    return rowsOf<{ v: string | null }>(result)[0]?.v ?? undefined;
  }

  /** Changes whenever the run list would: a run started, moved, or spent. */
  async listVersion(): Promise<string> {
    const result = await this.db.execute<{ v: string | null }>(sql`
      select concat_ws('|', count(*), sum(status_version_wanted), max(updated_at), max(id)) as v
      from ${runs}`);
    return rowsOf<{ v: string | null }>(result)[0]?.v ?? '';
  }

  private async taskCounts(runIds: number[]): Promise<Map<number, RunTaskCounts>> {
    const counts = new Map<number, RunTaskCounts>();
    if (runIds.length === 0) return counts;
    const rows = await this.db
      .select({
        runId: tasks.runId,
        state: tasks.state,
        n: sql<number>`count(*)::int`,
        ready: countReady,
      })
      .from(tasks)
      .innerJoin(runs, eq(runs.id, tasks.runId))
      .where(and(inArray(tasks.runId, runIds), graphTask))
      .groupBy(tasks.runId, tasks.state, runs.state);
    for (const row of rows) {
      const entry = counts.get(row.runId) ?? { byState: {}, ready: 0 };
      entry.byState[row.state] = Number(row.n);
      entry.ready += Number(row.ready);
      counts.set(row.runId, entry);
    }
    return counts;
  }
}
