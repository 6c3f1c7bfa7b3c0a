import { updateRefusedAtHead } from '../merge/classify-update-refusal.js';
import { offRunBase } from '../merge/run-base.js';
import {
  explainRun,
  filesOutsideDeclaration,
  formatWaitReason,
  selectDispatches,
  type OutsideFiles,
  type SchedulerInput,
  type WaitReason,
} from '../scheduler/index.js';
import type { StepBudget } from '../glob.js';
import {
  IN_REVIEW_TASK_STATES,
  TERMINAL_TASK_STATES,
  type RunState,
  type TaskState,
} from '../states.js';
import type { StatusTaskView, StatusView } from './types.js';
import { isDispatchReady, stackedOnText } from '../stack/index.js';

/**
 * The steps one render may spend checking the run's PRs' files against their tasks' `files:`
 * (`filesOutsideDeclaration`): a few milliseconds, however many globs and files (docs/lifecycle.md,
 * "Overlapping files"). Ordinary runs check everything in a small part of it.
 */
const OUTSIDE_CHECK_STEPS = 1_000_000;

function outsideView({ files, unchecked }: OutsideFiles): Partial<StatusTaskView> {
  return { outsideFiles: files, ...(unchecked > 0 ? { outsideUnchecked: unchecked } : {}) };
}

/** What the status comment is made from: one read of the run (src/engine/status.ts). */
export interface StatusSnapshot {
  run: {
    id: number;
    state: RunState;
    issueNumber: number;
    planError: string | null;
    holdReason: string | null;
    /** Why the run ended, when core named a reason (src/core/lifecycle/reachability.ts). */
    endReason?: string | null;
    budgetWaived: boolean;
    maxParallel: number;
    maxCostUsdPerRun: number;
    /** The branch the run merges into; null for a run recorded before its base was. */
    baseBranch?: string | null;
  };
  tasks: readonly {
    id: number;
    taskKey: string;
    title: string;
    state: TaskState;
    attemptCount: number;
    prNumber: number | null;
    priority: number;
    planIndex: number;
    unmetDeps: number;
    nextAttemptAt: number | null;
    held: boolean;
    /** The plan's `files:` and its PR's changed files, when known. */
    files?: readonly string[] | null;
    changedFiles?: readonly string[] | null;
    /** The dependency the task may start on, or was started on (`dispatch.stack`). */
    stackParent?: string | null;
    stackParentPr?: number | null;
  }[];
  depsOf: ReadonlyMap<string, readonly string[]>;
  attempts: readonly {
    taskId: number;
    attempt: number;
    costUsd: number | null;
    failureReason: string | null;
  }[];
  pulls: readonly {
    taskId: number | null;
    number: number;
    headSha: string;
    checksRerunning: string | null;
    checksRerunSha: string | null;
    agentConfigChanged: readonly string[];
    baseRef?: string;
    /** The head GitHub refused the App's update of the branch at, and its message (a 403). */
    updateRefusedSha?: string | null;
    updateRefusedMessage?: string | null;
  }[];
  spentUsd: number;
  inflight: { repository: number; global: number };
  /** COORDINATOR_MAX_PARALLEL (Infinity without it). */
  globalLimit: number;
  /** The installation's share of it while others have work (src/core/scheduler/fair-share.ts). */
  installation?: SchedulerInput['installation'];
  now: number;
  /**
   * The run's ready tasks that wait on an overlap of their files (engine/overlap.ts, the claim's
   * decision), by task key.
   */
  overlapWaits?: ReadonlyMap<string, WaitReason>;
  /** Seconds until the installation's next write, when the write budget holds one back. */
  nextWriteInSeconds?: number;
}

/** docs/status-comment.md: the run as the status comment shows it, and why each task waits. */
export function statusViewOf(s: StatusSnapshot): StatusView {
  const { run } = s;
  // Failing checks given another chance before the task goes back (docs/configuration.md).
  const rerunning = new Map<number, string>();
  // The agent configuration each task's PR changes, as its body says (by task and PR number:
  // an earlier PR of the task, closed since, is not its PR any more).
  const agentConfig = new Map<string, readonly string[]>();
  // A PR GitHub would not let the App update, while that is still its head.
  const refused = new Map<string, { base: string; message: string }>();
  // A PR someone retargeted off the run's base, which never merges there (offRunBase).
  const offBase = new Map<string, string>();
  for (const p of s.pulls) {
    const off =
      p.taskId !== null && p.baseRef && run.baseBranch
        ? offRunBase({ baseRef: p.baseRef }, run.baseBranch)
        : undefined;
    if (off) offBase.set(`${p.taskId}#${p.number}`, off);
    if (
      p.taskId !== null &&
      updateRefusedAtHead({ headSha: p.headSha, updateRefusedSha: p.updateRefusedSha ?? undefined })
    )
      refused.set(`${p.taskId}#${p.number}`, {
        base: p.baseRef ?? '',
        message: p.updateRefusedMessage ?? '',
      });
    if (p.taskId !== null && p.checksRerunning && p.checksRerunSha === p.headSha)
      rerunning.set(p.taskId, `re-running ${p.checksRerunning} (flaky?)`);
    if (p.taskId !== null && p.agentConfigChanged.length > 0)
      agentConfig.set(`${p.taskId}#${p.number}`, p.agentConfigChanged);
  }
  const cost = new Map<number, number>();
  // Why each task's latest failed attempt failed (the worker's own reason when it gave one).
  const lastFailure = new Map<number, { attempt: number; reason: string }>();
  for (const a of s.attempts) {
    if (a.costUsd) cost.set(a.taskId, (cost.get(a.taskId) ?? 0) + a.costUsd);
    const known = lastFailure.get(a.taskId);
    if (a.failureReason && (!known || known.attempt < a.attempt))
      lastFailure.set(a.taskId, { attempt: a.attempt, reason: a.failureReason });
  }
  // Ready tasks that are not running wait on overlapping files or a concurrency limit: say which.
  const overlaps = s.overlapWaits ?? new Map<string, WaitReason>();
  const decision =
    run.state === 'running'
      ? selectDispatches({
          now: s.now,
          candidates: s.tasks
            .filter(
              (t) =>
                t.state === 'pending' &&
                isDispatchReady({ unmetDeps: t.unmetDeps, stackParent: t.stackParent ?? null }) &&
                !overlaps.has(t.taskKey),
            )
            .map((t) => ({
              runId: String(run.id),
              taskId: t.taskKey,
              priority: t.priority,
              order: t.planIndex,
              backoffUntil: t.nextAttemptAt ?? undefined,
            })),
          repoInflight: s.inflight.repository,
          repoLimit: run.maxParallel,
          globalInflight: s.inflight.global,
          globalLimit: s.globalLimit,
          ...(s.installation ? { installation: s.installation } : {}),
          heldRuns: new Set(),
          budgetExhaustedRuns: new Set(),
        })
      : undefined;
  for (const [taskKey, reason] of overlaps) {
    const t = s.tasks.find((x) => x.taskKey === taskKey);
    if (t)
      decision?.waiting.push({
        candidate: {
          runId: String(run.id),
          taskId: taskKey,
          priority: t.priority,
          order: t.planIndex,
        },
        reason,
      });
  }
  const why = explainRun({
    decision,
    now: s.now,
    runId: String(run.id),
    tasks: s.tasks.map((t) => ({
      id: t.taskKey,
      deps: [...(s.depsOf.get(t.taskKey) ?? [])],
      state: t.state,
      prNumber: t.prNumber ?? undefined,
      backoffUntil: t.nextAttemptAt ?? undefined,
      held: t.held,
    })),
    runHeld: run.state === 'held',
    budgetExhausted: !run.budgetWaived && s.spentUsd >= run.maxCostUsdPerRun,
  });
  const outsideChecks: StepBudget = { left: OUTSIDE_CHECK_STEPS };
  const tasks: StatusTaskView[] = s.tasks.map((t) => {
    const reason = why.get(t.taskKey);
    const failure = t.state === 'failed' ? lastFailure.get(t.id)?.reason : undefined;
    const changed = agentConfig.get(`${t.id}#${t.prNumber}`);
    const updateRefused = TERMINAL_TASK_STATES.has(t.state)
      ? undefined
      : refused.get(`${t.id}#${t.prNumber}`);
    return {
      id: t.taskKey,
      title: t.title,
      deps: [...(s.depsOf.get(t.taskKey) ?? [])],
      state: t.state,
      attempts: t.attemptCount,
      prNumber: t.prNumber ?? undefined,
      costUsd: cost.get(t.id),
      agentConfigChanged: changed && [...changed],
      ...(updateRefused && { updateRefused }),
      ...(t.changedFiles && t.files
        ? outsideView(filesOutsideDeclaration(t.files, t.changedFiles, outsideChecks))
        : {}),
      waiting:
        (IN_REVIEW_TASK_STATES.has(t.state) ? rerunning.get(t.id) : undefined) ??
        stackedOf(t) ??
        (IN_REVIEW_TASK_STATES.has(t.state) ? offBase.get(`${t.id}#${t.prNumber}`) : undefined) ??
        (reason ? formatWaitReason(reason) : failure),
    };
  });
  const notes: string[] = [];
  if (run.state === 'planning') notes.push('Planning: waiting for the planner job to post a plan.');
  if (run.state === 'awaiting_approval')
    notes.push('Waiting for `/approve` on this issue to start.');
  if (run.endReason) notes.push(`Ended: ${run.endReason}.`);
  if (s.nextWriteInSeconds !== undefined)
    notes.push(`GitHub write budget: next write in ${s.nextWriteInSeconds} s`);
  return {
    runState: run.state,
    issueNumber: run.issueNumber,
    tasks,
    spentUsd: s.spentUsd,
    budgetUsd: run.maxCostUsdPerRun,
    planErrors: run.planError ?? undefined,
    notes,
    holdReason: run.state === 'held' ? (run.holdReason ?? undefined) : undefined,
    updatedAt: new Date(s.now).toISOString(),
  };
}

/** A stacked task still waiting for its parent to merge says so, not "waiting for …". */
function stackedOf(t: StatusSnapshot['tasks'][number]): string | undefined {
  if (!t.stackParent || t.stackParentPr == null || t.unmetDeps !== 1) return undefined;
  if (TERMINAL_TASK_STATES.has(t.state)) return undefined;
  return stackedOnText({ parent: t.stackParent, pr: t.stackParentPr });
}
