import type { RepoConfig } from '../config/schema.js';
import { composeAssignment, type AssignmentText } from '../core/worker-inputs.js';
import type { AssignmentRequest, AssignmentResponse, WorkerMode } from '../protocol/assignment.js';
import { attemptDeadline } from '../protocol/deadline.js';
import { structuredFeedbackSchema } from '../protocol/review-feedback.js';
import type { AttemptRow } from '../store/attempts.js';
import type { Store } from '../store/index.js';
import type { PlanAttemptRow, RunRow, TaskRow } from '../store/runs.js';

/** The attempt a worker asks about: a task's, or the planner's (`task_id` = `plan`). */
export type AssignmentTarget =
  | { kind: 'task'; run: RunRow; task: TaskRow; attempt: AttemptRow }
  | { kind: 'plan'; run: RunRow; plan: PlanAttemptRow };

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
  if (request.task_id === 'plan') {
    const plans = await store.runs.planAttempts(run.id);
    const plan = plans[plans.length - 1];
    if (!plan || plan.attempt !== asked) return { ok: false, code: 'attempt' };
    return { ok: true, target: { kind: 'plan', run, plan } };
  }
  const task = await store.runs.task(run.id, request.task_id);
  if (!task) return { ok: false, code: 'task_id' };
  const attempt = await store.attempts.latestOf(task.id);
  if (!attempt || attempt.attempt !== asked) return { ok: false, code: 'attempt' };
  return { ok: true, target: { kind: 'task', run, task, attempt } };
}

/** What the target's attempt row says about its workflow run. */
export function attemptOf(target: AssignmentTarget): PlanAttemptRow | AttemptRow {
  return target.kind === 'plan' ? target.plan : target.attempt;
}

export function modeOf(target: AssignmentTarget): WorkerMode {
  if (target.kind === 'plan') return 'plan';
  return target.attempt.mode === 'fix' ? 'fix' : 'work';
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
  if (target.kind === 'plan') {
    const timeoutMinutes = config.worker.timeoutMinutes;
    return {
      ...composeAssignment({
        issueNumber: run.issueNumber,
        title: run.issueTitle,
        prompt: run.issueBody,
        issueTitle: run.issueTitle,
        issueBody: run.issueBody,
        base,
        timeoutMinutes,
        model: config.worker.models.default,
        maxTurns: config.worker.maxTurns,
      }),
      deadline_at: deadlineOf(target.plan, timeoutMinutes),
    };
  }
  const { task, attempt } = target;
  const timeoutMinutes = task.timeoutMinutes ?? config.worker.timeoutMinutes;
  return {
    ...composeAssignment({
      issueNumber: run.issueNumber,
      title: task.title,
      prompt: task.prompt,
      issueTitle: run.issueTitle,
      issueBody: run.issueBody,
      feedback: attempt.feedback,
      base,
      timeoutMinutes,
      model: config.worker.models[task.type] ?? config.worker.models.default ?? 'claude-sonnet-4-5',
      maxTurns: config.worker.maxTurns,
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
