// The coordinator's memory. GitHub ids (installations, repositories, comments,
// workflow runs, check runs) exceed 2^31, so they are bigint everywhere.
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { RUN_STATES, TASK_STATES } from '../src/core/states.js';

const githubId = (name: string) => bigint(name, { mode: 'number' });
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
});
const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

export const runState = pgEnum('run_state', RUN_STATES);

export const taskState = pgEnum('task_state', TASK_STATES);

export const deliveryStatus = pgEnum('delivery_status', [
  'pending',
  'processing',
  'done',
  'failed',
]);

export const installations = pgTable('installations', {
  id: githubId('id').primaryKey(),
  suspendedAt: timestamp('suspended_at', { withTimezone: true }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const repositories = pgTable(
  'repositories',
  {
    id: githubId('id').primaryKey(),
    installationId: githubId('installation_id')
      .notNull()
      .references(() => installations.id),
    owner: text('owner').notNull(),
    name: text('name').notNull(),
    defaultBranch: text('default_branch'),
    /**
     * concurrency.maxParallel as the repository's newest run saw its config: the repository's
     * dispatch limit, read with the repository instead of from a run.
     */
    maxParallel: integer('max_parallel'),
    /**
     * GitHub no longer lets the App reach the repository (docs/running.md, "Removing the App"):
     * removed from its installation, or the installation deleted (`removedAt`), or the
     * installation suspended (`suspendedAt`, copied from the installation's). Nothing is claimed
     * or read of it until an installation event gives it back.
     */
    removedAt: timestamp('removed_at', { withTimezone: true }),
    suspendedAt: timestamp('suspended_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // No unique name: a name is the repository's only until it is renamed or transferred, and a row
  // keeps an old one until a delivery names the repository again, while a new repository may
  // already have it (docs/security.md, "Another installation"). Nothing is looked up by name.
  (t) => [index('repositories_installation_idx').on(t.installationId)],
);

/** One run per issue and attempt of the whole (a run cancelled and re-labelled starts generation 2). */
export const runs = pgTable(
  'runs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    repositoryId: githubId('repository_id')
      .notNull()
      .references(() => repositories.id),
    issueNumber: integer('issue_number').notNull(),
    generation: integer('generation').notNull().default(1),
    state: runState('state').notNull().default('planning'),
    /** Where the plan came from: issue body, planner job, or a /plan command. */
    planSource: text('plan_source'),
    planError: text('plan_error'),
    baseBranch: text('base_branch'),
    /** The repository config in force when the run started, defaults filled. */
    config: jsonb('config').notNull(),
    held: boolean('held').notNull().default(false),
    holdReason: text('hold_reason'),
    planApproved: boolean('plan_approved').notNull().default(false),
    /** `/unhold` of a budget hold: dispatch goes on past the budget for this run. */
    budgetWaived: boolean('budget_waived').notNull().default(false),
    statusCommentId: githubId('status_comment_id'),
    /** Bumped by every change the status comment shows; the comment is rewritten while rendered < wanted. */
    statusVersionWanted: integer('status_version_wanted').notNull().default(1),
    statusVersionRendered: integer('status_version_rendered').notNull().default(0),
    startedBy: text('started_by').notNull(),
    /** The issue as it was when the run started: the default prompt is its title and body. */
    issueTitle: text('issue_title').notNull().default(''),
    issueBody: text('issue_body').notNull().default(''),
    /**
     * `issue.updated_at` of the label event that started the run (GitHub's clock): a later label
     * event of the issue is dated after it (src/core/lifecycle/label-start.ts).
     */
    triggerUpdatedAt: timestamp('trigger_updated_at', { withTimezone: true }),
    /** Why the run ended, when core names a reason of its own (src/core/lifecycle/reachability.ts). */
    endReason: text('end_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('runs_issue_generation_idx').on(t.repositoryId, t.issueNumber, t.generation),
    // At most one active run per issue, even when two deliveries race to start one.
    uniqueIndex('runs_one_active_per_issue_idx')
      .on(t.repositoryId, t.issueNumber)
      .where(sql`${t.finishedAt} is null`),
    index('runs_active_idx')
      .on(t.repositoryId, t.state)
      .where(sql`${t.finishedAt} is null`),
  ],
);

/**
 * A run's tasks. The planner job is the reserved task `plan` (PLAN_TASK_KEY, src/core/plan), whose
 * attempts run in mode `plan`: it is no part of the plan's graph (src/store/runs.ts, graphTask).
 */
export const tasks = pgTable(
  'tasks',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: bigint('run_id', { mode: 'number' })
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    /**
     * The run's repository and creation time, copied from the run by the insert trigger of
     * migration 0007 (so inserts leave them out: null until the trigger fills them): the ready
     * set and the in-flight counts of a repository are walks of the indexes below, no join.
     */
    repositoryId: bigint('repository_id', { mode: 'number' })
      .notNull()
      .$defaultFn(() => sql`null`),
    runCreatedAt: timestamp('run_created_at', { withTimezone: true })
      .notNull()
      .$defaultFn(() => sql`null`),
    taskKey: text('task_key').notNull(),
    /** Position in the plan: ties in priority go to the oldest run, then plan order. */
    planIndex: integer('plan_index').notNull(),
    title: text('title').notNull(),
    type: text('type').notNull().default('default'),
    prompt: text('prompt'),
    priority: integer('priority').notNull().default(3),
    timeoutMinutes: integer('timeout_minutes'),
    /** The plan's `files:` globs; null when the task declares none (it never waits on overlap). */
    files: jsonb('files').$type<string[]>(),
    /**
     * The files the task's PR changes (`GET /pulls/{n}/files`), read when it opens and on each
     * push: they replace `files` in the overlap decisions still to come (docs/lifecycle.md).
     */
    changedFiles: jsonb('changed_files').$type<string[]>(),
    /**
     * The PR head `changedFiles` were read at: a head the coordinator learns later (a push whose
     * delivery was lost) has them read again (core's `changedFilesCurrent`).
     */
    changedFilesHead: text('changed_files_head'),
    state: taskState('state').notNull().default('pending'),
    /** Deps not merged yet: the scheduler's incremental ready test is unmet_deps = 0. */
    unmetDeps: integer('unmet_deps').notNull().default(0),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    held: boolean('held').notNull().default(false),
    approvedSha: text('approved_sha'),
    /**
     * When a plain `/approve` (one that names no commit) was written: it covers only a head that
     * reached the PR before then (docs/commands.md). Null for an approval that names its commit.
     */
    approvedAt: timestamp('approved_at', { withTimezone: true }),
    /**
     * The login of the person whose `/approve` or approving review `approvedSha` is: the approval
     * counts at merge time only while they still have write access (docs/commands.md). Null for
     * an approval recorded before this column was (migration 0029): such an approval counts as
     * it did then, on the permission its author had when they gave it.
     */
    approvedBy: text('approved_by'),
    /**
     * The commit the approval was given on: `approvedSha` as recorded, kept when the coordinator's
     * update of a behind branch carries the approval to the update's head. A dismissed review
     * takes back the approval given on its commit (docs/lifecycle.md, "Reviews"). Null for an
     * approval recorded before this column was (migration 0030): `approvedSha` stands for it.
     */
    approvalOriginSha: text('approval_origin_sha'),
    vetoReason: text('veto_reason'),
    pendingFeedback: text('pending_feedback'),
    /**
     * The review and failing checks behind pendingFeedback, as the worker's assignment carries
     * them (src/protocol/review-feedback.ts): copied to the next attempt with it.
     */
    pendingReview: jsonb('pending_review'),
    /** Mode of the next attempt: work, or fix when it builds on the PR's commits. */
    nextMode: text('next_mode').notNull().default('work'),
    prNumber: integer('pr_number'),
    /**
     * `dispatch.stack` (docs/stacking.md): the one unmerged dependency this task may start on,
     * with that dependency's PR and the head it was stacked on (its branch's start, then the head
     * it was last brought up to date with). Set by the engine from core's decision while the task
     * is pending; the claim dispatches a task with one unmerged dependency only when it is set.
     */
    stackParent: text('stack_parent'),
    stackParentPr: integer('stack_parent_pr'),
    stackParentHead: text('stack_parent_head'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('tasks_run_key_idx').on(t.runId, t.taskKey),
    // In the claim's order (src/store/attempts.ts readyTasks): a claim reads as many entries
    // as it takes, not the repository's whole ready set.
    index('tasks_ready_idx')
      .on(t.repositoryId, t.priority.desc(), t.runCreatedAt, t.runId, t.planIndex)
      .where(
        sql`${t.state} = 'pending' and (${t.unmetDeps} = 0 or (${t.unmetDeps} = 1 and ${t.stackParent} is not null))`,
      ),
    index('tasks_state_idx').on(t.runId, t.state),
    // Counted under the global dispatch lock on every scheduling pass: the few in flight, not
    // every task.
    index('tasks_inflight_idx')
      .on(t.repositoryId)
      .where(sql`${t.state} in ('dispatched', 'running')`),
    // The tasks that claim paths on a scheduling pass (src/store/task-paths.ts): those with
    // files, not merged or ended; a repository whose plans declare no files has none.
    index('tasks_paths_idx')
      .on(t.repositoryId)
      .where(
        sql`(${t.files} is not null or ${t.changedFiles} is not null) and ${t.state} in ('pending', 'dispatched', 'running', 'in_review', 'approved', 'merging')`,
      ),
  ],
);

export const taskEdges = pgTable(
  'task_edges',
  {
    runId: bigint('run_id', { mode: 'number' })
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    taskKey: text('task_key').notNull(),
    dependsOn: text('depends_on').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.taskKey, t.dependsOn] }),
    index('task_edges_dependents_idx').on(t.runId, t.dependsOn),
  ],
);

/** One row per (task, attempt): written as intent before the dispatch call, so a crash never dispatches twice. */
export const attempts = pgTable(
  'attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    taskId: bigint('task_id', { mode: 'number' })
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    /** work, fix, or plan (the planner task's; a plan comment is accepted only for its runs). */
    mode: text('mode').notNull(),
    /** intent → dispatched → running → completed */
    phase: text('phase').notNull().default('intent'),
    workflowRunId: githubId('workflow_run_id'),
    workflowRunUrl: text('workflow_run_url'),
    conclusion: text('conclusion'),
    failureReason: text('failure_reason'),
    feedback: text('feedback'),
    /** The structured review and checks this attempt was given (src/protocol/review-feedback.ts). */
    review: jsonb('review'),
    /**
     * The stack parent's PR this attempt was dispatched on (docs/stacking.md): the attempt may
     * start from that PR's commits, which a squash or rebase merge leaves off the base.
     */
    stackParentPr: integer('stack_parent_pr'),
    intentAt: timestamp('intent_at', { withTimezone: true }).notNull().defaultNow(),
    dispatchedAt: timestamp('dispatched_at', { withTimezone: true }),
    startedAt: timestamp('started_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    costUsd: numeric('cost_usd', { precision: 12, scale: 4, mode: 'number' }),
    inputTokens: bigint('input_tokens', { mode: 'number' }),
    outputTokens: bigint('output_tokens', { mode: 'number' }),
    /**
     * The re-runs of its workflow run (`run_attempt` 2 and on) whose spend the attempt has been
     * charged, each once (docs/worker.md, "What the agent spent").
     */
    chargedRunAttempts: integer('charged_run_attempts')
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
  },
  (t) => [
    uniqueIndex('attempts_task_attempt_idx').on(t.taskId, t.attempt),
    uniqueIndex('attempts_workflow_run_idx').on(t.workflowRunId),
  ],
);

export const pullRequests = pgTable(
  'pull_requests',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    repositoryId: githubId('repository_id')
      .notNull()
      .references(() => repositories.id),
    number: integer('number').notNull(),
    taskId: bigint('task_id', { mode: 'number' }).references(() => tasks.id, {
      onDelete: 'set null',
    }),
    nodeId: text('node_id'),
    headRef: text('head_ref').notNull(),
    headSha: text('head_sha').notNull(),
    baseRef: text('base_ref').notNull(),
    state: text('state').notNull(),
    merged: boolean('merged').notNull().default(false),
    orderCheckRunId: githubId('order_check_run_id'),
    orderCheckSha: text('order_check_sha'),
    orderCheckConclusion: text('order_check_conclusion'),
    /**
     * The head the coordinator's own update of the branch merges the base into, recorded before
     * it asks GitHub (`POST /merges`), and the merge commit GitHub answered with, once recorded:
     * the approval of `from` carries over to exactly that commit's push (core's decidePush).
     */
    updatedByCoordinatorFrom: text('updated_by_coordinator_from'),
    updatedByCoordinatorTo: text('updated_by_coordinator_to'),
    /**
     * The latest `pull_request.updated_at` of a push of new work (a `synchronize` other than the
     * coordinator's own update): the head GitHub shows reached the PR then.
     */
    workPushedAt: timestamp('work_pushed_at', { withTimezone: true }),
    /**
     * The head of the latest `opened` or `synchronize` delivery handled (by its
     * `pull_request.updated_at`, `deliveredHeadAt`): the newest head whose arrival the coordinator
     * has dated. A head GitHub shows that differs came by a push whose delivery is still to come.
     */
    deliveredHead: text('delivered_head'),
    deliveredHeadAt: timestamp('delivered_head_at', { withTimezone: true }),
    /** Head SHA already sent back to the worker (conflicts, failing checks): once per SHA. */
    sentBackForSha: text('sent_back_for_sha'),
    /**
     * The head GitHub refused the App's update of the branch at with a 403 (a merge the App may not
     * push, such as a workflow file's change), and GitHub's message: no update is asked for at
     * that head again, and the PR waits for a person's push (docs/lifecycle.md step 9).
     */
    updateRefusedSha: text('update_refused_sha'),
    updateRefusedMessage: text('update_refused_message'),
    /** When it was enqueued in the merge queue (group order). */
    enqueuedAt: timestamp('enqueued_at', { withTimezone: true }),
    /** Ids of the "changes requested" reviews already sent back to the worker: once per review. */
    sentBackForReviews: jsonb('sent_back_for_reviews').$type<number[]>().notNull().default([]),
    /**
     * The agent configuration files the PR changes, from its body's agent-config marker as last
     * read (docs/worker.md, "Agent configuration"): shown in the status comment.
     */
    agentConfigChanged: jsonb('agent_config_changed').$type<string[]>().notNull().default([]),
    /** The head SHA `checksReruns` counts for: flaky checks are re-run per head (checks.rerunFailed). */
    checksRerunSha: text('checks_rerun_sha'),
    checksReruns: integer('checks_reruns').notNull().default(0),
    /** The checks being re-run now, for the status comment; null when none. */
    checksRerunning: text('checks_rerunning'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('pull_requests_repo_number_idx').on(t.repositoryId, t.number),
    index('pull_requests_task_idx').on(t.taskId),
  ],
);

/** Every command seen, accepted or not: who did what, where, when. */
export const commands = pgTable(
  'commands',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    repositoryId: githubId('repository_id')
      .notNull()
      .references(() => repositories.id),
    issueNumber: integer('issue_number').notNull(),
    runId: bigint('run_id', { mode: 'number' }).references(() => runs.id, {
      onDelete: 'set null',
    }),
    commentId: githubId('comment_id').notNull(),
    /** Index of the command within its comment: one comment may hold several. */
    ordinal: integer('ordinal').notNull(),
    actorLogin: text('actor_login').notNull(),
    permission: text('permission'),
    name: text('name').notNull(),
    args: jsonb('args'),
    accepted: boolean('accepted').notNull(),
    outcome: text('outcome'),
    /**
     * The delivery that claimed the command: only it carries the command out (again, if its
     * handling is retried before `doneAt`); another delivery of the comment does nothing.
     */
    deliveryId: text('delivery_id'),
    /** When the command was carried out (or refused) and its outcome recorded. */
    doneAt: timestamp('done_at', { withTimezone: true }),
    /** When its comment got its reaction or reply. */
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('commands_comment_ordinal_idx').on(t.commentId, t.ordinal),
    index('commands_run_idx').on(t.runId),
  ],
);

/** The webhook ledger and inbox: a delivery is stored before it is acknowledged, then handled once. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    deliveryId: text('delivery_id').primaryKey(),
    event: text('event').notNull(),
    action: text('action'),
    installationId: githubId('installation_id'),
    repositoryId: githubId('repository_id'),
    /** Deliveries stored before 0004 (parsed); newer ones have `body`. */
    payload: jsonb('payload'),
    /** Deliveries stored from 0004 to 0019: the body as GitHub sent it, Brotli-compressed. */
    body: bytea('body'),
    /**
     * The body exactly as GitHub sent it, for deliveries stored since 0019 (`body` holds the
     * Brotli-compressed ones before it). Postgres compresses it (lz4 where the server has it):
     * that costs the server's backend less than Brotli cost the coordinator's one thread.
     */
    bodyText: text('body_text'),
    status: deliveryStatus('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    lockedBy: text('locked_by'),
    lockedAt: timestamp('locked_at', { withTimezone: true }),
    /** A failed handling is retried with backoff: not claimed before this time. */
    availableAt: timestamp('available_at', { withTimezone: true }).notNull().defaultNow(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The inbox is read oldest first; a retry not due yet is skipped over, and there are few.
    index('webhook_deliveries_pending_idx')
      .on(t.receivedAt)
      .where(sql`${t.status} = 'pending'`),
    // Claims a crashed process left behind.
    index('webhook_deliveries_processing_idx')
      .on(t.lockedAt)
      .where(sql`${t.status} = 'processing'`),
    // Deliveries that failed for good: few, counted on every /metrics scrape.
    index('webhook_deliveries_failed_idx')
      .on(t.receivedAt)
      .where(sql`${t.status} = 'failed'`),
    // The sweep forgets old deliveries by age. BRIN: rows arrive in time order, and it costs
    // the inbox's inserts and updates next to nothing.
    index('webhook_deliveries_received_idx').using('brin', t.receivedAt),
  ],
);

/**
 * GitHub writes an installation made or is making, from every replica: the shared count behind
 * the write budget (src/github/write-budget.ts). A row is reserved before its request is sent
 * and stamped `sent_at` when GitHub answered; rows are pruned once no window counts them.
 */
export const githubWriteReservations = pgTable(
  'github_write_reservations',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    // No foreign key: a write can come before the installation's first webhook is stored.
    installationId: githubId('installation_id').notNull(),
    reservedAt: timestamp('reserved_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** null while the request is in flight. */
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    /** Comments, issues, pull requests, reviews, labels: GitHub's hourly content limit counts these. */
    createsContent: boolean('creates_content').notNull(),
  },
  (t) => [index('github_write_reservations_installation_idx').on(t.installationId, t.reservedAt)],
);
