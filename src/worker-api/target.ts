import { modelForTaskType, networkAllowOf, type RepoConfig } from '../config/schema.js';
import { PLAN_TASK_KEY } from '../core/plan/index.js';
import {
  composeAssignment,
  composePlannerAssignment,
  type AssignmentText,
} from '../core/worker-inputs.js';
import { workerModeOf } from '../engine/dispatch.js';
import { isPlannerTask } from '../engine/planner.js';
import { stackedBase } from '../core/stack/index.js';
import type { AssignmentRequest, AssignmentResponse, WorkerMode } from '../protocol/assignment.js';
import { attemptDeadline } from '../protocol/deadline.js';
import { structuredFeedbackSchema } from '../protocol/review-feedback.js';
import type { AttemptRow } from '../store/attempt-row.js';
import type { Store } from '../store/index.js';
import type { RunRow, TaskRow } from '../store/runs.js';

/** The attempt a worker asks about: a task's, the planner's (`task_id` = `plan`) included. */
export interface AssignmentTarget {
  run: RunRow;
  task: TaskRow;
  attempt: AttemptRow;
}

export type TargetLookup =
  { ok: true; target: AssignmentTarget } | { ok: false; code: 'issue' | 'task_id' | 'attempt' };

/** The issue's active run, and in it the task's latest attempt if it is the one asked for. */
export async function findAssignmentTarget(
  store: Store,
  repositoryId: number,
  request: AssignmentRequest,
): Promise<TargetLookup> {
  const run = await store.runs.latestRun(repositoryId, Number(request.issue));
  if (!run || run.finishedAt) return { ok: false, code: 'issue' };
  const asked = Number(request.attempt);
  const task = await store.runs.task(run.id, request.task_id);
  // `plan` always names a task (the planner's); before its dispatch it has no attempt yet.
  if (!task) return { ok: false, code: request.task_id === PLAN_TASK_KEY ? 'attempt' : 'task_id' };
  const attempt = await store.attempts.latestOf(task.id);
  if (!attempt || attempt.attempt !== asked) return { ok: false, code: 'attempt' };
  return { ok: true, target: { run, task, attempt } };
}

export function modeOf(target: AssignmentTarget): WorkerMode {
  return workerModeOf(target.attempt.mode);
}

/** The assignment beyond its identifiers and token. */
export type AssignmentBody = AssignmentText &
  Pick<AssignmentResponse, 'deadline_at' | 'review' | 'checks'>;

/** The assignment's words, from what the run stored when it started and planned. */
export function assignmentTextOf(
  target: AssignmentTarget,
  defaultBranch: string | null,
): AssignmentBody {
  const { run } = target;
  const config = run.config as RepoConfig;
  const base = run.baseBranch ?? defaultBranch;
  // The planner plans the whole issue: its words are the issue's own.
  if (isPlannerTask(target.task)) {
    const timeoutMinutes = config.worker.timeoutMinutes;
    return {
      ...composePlannerAssignment({
        issueNumber: run.issueNumber,
        issueTitle: run.issueTitle,
        issueBody: run.issueBody,
        base,
        timeoutMinutes,
        model: config.worker.models.default,
        maxTurns: config.worker.maxTurns,
        networkAllow: networkAllowOf(config.worker),
      }),
      deadline_at: deadlineOf(target.attempt, timeoutMinutes),
    };
  }
  const { task, attempt } = target;
  // dispatch.stack: a task stacked on an unmerged dependency works against that one's branch.
  const taskBase = stackedBase(run, task) ?? base;
  const timeoutMinutes = task.timeoutMinutes ?? config.worker.timeoutMinutes;
  return {
    ...composeAssignment({
      issueNumber: run.issueNumber,
      title: task.title,
      prompt: task.prompt,
      issueTitle: run.issueTitle,
      issueBody: run.issueBody,
      feedback: attempt.feedback,
      base: taskBase,
      runBase: base,
      stackParentPr: attempt.stackParentPr,
      timeoutMinutes,
      model: modelForTaskType(config.worker, task.type),
      maxTurns: config.worker.maxTurns,
      networkAllow: networkAllowOf(config.worker),
    }),
    deadline_at: deadlineOf(attempt, timeoutMinutes),
    ...structuredFeedbackOf(attempt.review),
  };
}

/** The sweep's own limit (src/engine/sweep.ts): the timeout counted from the dispatch. */
function deadlineOf(
  attempt: { dispatchedAt: Date | null; intentAt: Date },
  timeoutMinutes: number,
): string {
  return attemptDeadline(attempt.dispatchedAt ?? attempt.intentAt, timeoutMinutes).toISOString();
}

/**
 * The review and checks stored with the attempt, already bounded by whoever stored them
 * (boundReview, boundChecks). A record that does not parse is left out rather than sent:
 * the text feedback still says what it is about.
 */
function structuredFeedbackOf(stored: unknown): Pick<AssignmentResponse, 'review' | 'checks'> {
  if (stored === null || stored === undefined) return {};
  const parsed = structuredFeedbackSchema.safeParse(stored);
  if (!parsed.success) return {};
  const { review, checks } = parsed.data;
  return {
    ...(review ? { review } : {}),
    ...(checks && checks.length > 0 ? { checks } : {}),
  };
}
