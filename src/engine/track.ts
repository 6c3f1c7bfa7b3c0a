import type {
  GitHubPort,
  PullInfo,
  PullState,
  RepoCoords,
  WorkflowRunInfo,
} from '../github/port.js';
import type { AttemptRow } from '../store/attempt-row.js';
import type { RepositoryRow } from '../store/repositories.js';
import type { RunRow, TaskRow } from '../store/runs.js';
import { parseTaskBranch, taskBranch } from '../protocol/branch.js';
import { loadRunScope, runBaseOf, type Engine, type RunScope } from './context.js';
import { scheduleRepository, schedulingOnce } from './dispatch.js';
import { enforceBudget } from './budget.js';
import { blockDependents, recordFailedAttempt } from './failures.js';
import { settleRun } from './finish.js';
import { advanceRun, markTaskMerged } from './merge/index.js';
import { completePlannerAttempt, isPlannerTask } from './planner.js';
import { crashPoint } from '../crash-points.js';
import { rerunUsage, workerReport } from './worker-report.js';
import { largerUsage } from '../protocol/markers.js';
import { requestReviewAgain } from './feedback.js';
import { withdrawApproval } from './approval.js';
import { recordChangedFiles } from './changed-files.js';
import { appPullForBranch } from './app-pulls.js';
import { freshRoleOf } from './roles.js';
import { onLookAlikePull, type PullRefusal } from './look-alike.js';
import { recordRefusedClose, type ClosedBy } from './close-refusal.js';
import { rowAfterMergeTurn, updateOf } from './update-branch.js';
import {
  closedRecordsMergeFirst,
  closeRefusalReason,
  awaitsSpendOfItsRun,
  chargedUsage,
  decideAttemptCompleted,
  decideRunAdoption,
  decidePullChanged,
  decidePullClosed,
  decidePullLink,
  decideWorkerRun,
  isAgentPull,
  isOpenAppPull,
  isOpenedByApp,
  readsCloserRole,
  namedWorkerRun,
  phaseWithRun,
  readsAgentPull,
  type AttemptCompletedEvent,
  type BranchUpdate,
} from '../core/lifecycle/index.js';

export type TrackedRun = {
  run: RunRow;
  task: TaskRow;
  attempt: AttemptRow;
  /** When the look-up read it along (by run id): the scope needs no second read. */
  repository?: RepositoryRow;
} | null;

/**
 * Which attempt a workflow run belongs to: by the id GitHub returned at dispatch, or — when
 * GitHub answered 204 without one — by its branch and run-name, which we chose (core's
 * `namedWorkerRun`, `decideRunAdoption`). The planner's runs are the attempts of its task `plan`,
 * found the same way.
 */
export async function findTrackedRun(
  engine: Engine,
  repositoryId: number,
  wr: WorkflowRunInfo,
): Promise<TrackedRun> {
  const { store } = engine;
  const byId = await store.attempts.trackedByWorkflowRun(wr.id);
  if (byId) return byId;
  const named = namedWorkerRun(wr);
  if (!named) return null;
  const run = await store.runs.latestRun(repositoryId, named.issueNumber);
  if (!run) return null;
  const task = await store.runs.task(run.id, named.taskKey);
  const attempt = task && (await store.attempts.byTaskAttempt(task.id, named.attempt));
  if (!task || !attempt) return null;
  const adoption = decideRunAdoption(attempt, wr.id);
  if (adoption.kind === 'none') {
    engine.log.debug({ workflowRun: wr.id, why: adoption.reason }, 'workflow run not tracked');
    return null;
  }
  if (adoption.kind === 'adopt') {
    const adopted = await store.attempts.adoptRun(attempt, {
      workflowRunId: wr.id,
      workflowRunUrl: wr.htmlUrl,
      phase: phaseWithRun(attempt.phase),
      dispatchedAt: attempt.dispatchedAt ?? engine.now(),
    });
    // The attempt moved since it was read (cancelled, or its run recorded): decide on it again.
    if (!adopted) return findTrackedRun(engine, repositoryId, wr);
  }
  return {
    run,
    task,
    attempt: {
      ...attempt,
      workflowRunId: wr.id,
      workflowRunUrl: attempt.workflowRunUrl ?? wr.htmlUrl,
    },
  };
}

/** A workflow_run event, or what the sweep read from GitHub for a run we track. */
export function onWorkflowRun(
  engine: Engine,
  repositoryId: number,
  wr: WorkflowRunInfo,
  scope?: RunScope,
): Promise<void> {
  return schedulingOnce(engine, () => trackWorkflowRun(engine, repositoryId, wr, scope));
}

async function trackWorkflowRun(
  engine: Engine,
  repositoryId: number,
  wr: WorkflowRunInfo,
  scope?: RunScope,
): Promise<void> {
  const tracked = await findTrackedRun(engine, repositoryId, wr);
  if (!tracked) return;
  const { run, task, attempt } = tracked;
  const decision = decideWorkerRun(
    {
      phase: attempt.phase,
      planner: isPlannerTask(task),
      awaitsSpend: awaitsSpendOfItsRun(attempt),
      chargedRunAttempts: attempt.chargedRunAttempts,
    },
    { status: wr.status, conclusion: wr.conclusion, runAttempt: wr.runAttempt },
  );
  const scopeOf = async () =>
    scope ?? (await loadRunScope(engine, run, undefined, tracked.repository));
  switch (decision.kind) {
    case 'ignore':
      return;
    case 'mark_running':
      await engine.store.runs.startAttempt(task.id, attempt.id, engine.now());
      crashPoint('track.running');
      engine.requestStatus(run.id);
      return;
    case 'complete_planner': {
      // No PR and no retry: the plan comes as the planner's comment (acceptPlanComment). Its
      // publish job said what the planner spent with its request for a token; the agent job's
      // annotation, read only when it did not, charges a planner that failed before that.
      const s = await scopeOf();
      const usage = chargedUsage(attempt) ?? (await workerReport(engine, s, wr)).usage;
      if (!(await completePlannerAttempt(engine, task, attempt, decision.conclusion, usage)))
        return;
      if (usage) await enforceBudget(engine, s);
      return;
    }
    case 'complete_succeeded': {
      const s = await scopeOf();
      // What the publish job said the attempt spent, with its request for a token: no read of
      // GitHub's. The PR's marker is only the fallback, for a worker that said nothing.
      const usage = chargedUsage(attempt);
      await attemptCompleted(engine, s, task, attempt, {
        kind: 'succeeded',
        ...(usage === undefined ? {} : { usage }),
      });
      await scheduleRepository(engine, s.repositoryId, s.repository);
      return;
    }
    case 'charge_after_run': {
      // The attempt was retried, or its task failed, when it timed out, or it was cancelled (its
      // run too, perhaps): its spend counts now, the run's whether or not it still goes on, and
      // a run it took past the budget holds the retry that waits for its backoff.
      const s = await scopeOf();
      const { usage } = await workerReport(engine, s, wr);
      if (!usage || !(await engine.store.attempts.chargeAfterItsRun(attempt.id, usage))) return;
      await enforceBudget(engine, s);
      engine.requestStatus(run.id);
      return;
    }
    case 'charge_rerun': {
      // A person re-ran the attempt's jobs: within its timeout the agent ran again. Its spend is
      // added to the attempt's, and the re-run recorded even when it said none (the agent did not
      // start), so its end's redelivery reads nothing again.
      const s = await scopeOf();
      const usage = await rerunUsage(s, wr);
      if (!(await engine.store.attempts.chargeRerun(attempt.id, decision.runAttempt, usage)))
        return;
      if (!usage) return;
      await enforceBudget(engine, s);
      engine.requestStatus(run.id);
      return;
    }
    case 'complete_failed': {
      const s = await scopeOf();
      const { reason, usage: said } = await workerReport(engine, s, wr);
      // The agent job's annotation, and what the publish job said if it got that far.
      const usage = largerUsage(said, chargedUsage(attempt));
      await attemptCompleted(engine, s, task, attempt, {
        kind: 'failed',
        conclusion: decision.conclusion,
        ...(reason === undefined ? {} : { workerReason: reason }),
        ...(usage === undefined ? {} : { usage }),
      });
      await scheduleRepository(engine, s.repositoryId, s.repository);
      return;
    }
  }
}

/**
 * The task moves on from its completed attempt: its PR goes into review, or the failed attempt
 * is retried. The sweep calls it for a task that stayed behind its completed attempt (the process
 * died in between); the guarded transitions make a second call change nothing.
 */
export async function moveOnFromAttempt(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
  attempt: AttemptRow,
): Promise<void> {
  crashPoint('track.attempt-completed');
  await attemptCompleted(engine, scope, task, attempt, { kind: 'resumed', attempt });
}

/**
 * An attempt's work ended (`event`): read what core's `readsAgentPull` says it needs (the task's
 * open agent PR), let `decideAttemptCompleted` decide, apply. A guarded write that does not take
 * ends the effects.
 */
async function attemptCompleted(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
  attempt: AttemptRow,
  event: AttemptCompletedEvent,
): Promise<void> {
  const found = readsAgentPull(event) ? await openAgentPullOf(engine, scope, task) : null;
  const pull = found?.pull ?? null;
  // Core acts on a PR only when it was shown one.
  const pullNow = (): PullInfo => {
    if (!pull) throw new Error(`no PR for task ${task.taskKey}`);
    return pull;
  };
  const log = engine.log.child({
    run: scope.run.id,
    issue: scope.run.issueNumber,
    task: task.taskKey,
    attempt: attempt.attempt,
  });
  let completed = attempt;
  /** What the run has spent, read as the attempt completed: the budget needs no second read. */
  let runSpentUsd: number | undefined;
  for (const effect of decideAttemptCompleted({ pull }, event)) {
    switch (effect.kind) {
      case 'none':
        log.debug({ why: effect.reason }, 'attempt completed: nothing to do');
        break;
      case 'completeWithoutPull': {
        crashPoint('track.before-complete');
        const done = await engine.store.attempts.completeSucceeded(attempt.id, task, {
          failureReason: effect.failureReason,
          ...(effect.spend && { spend: effect.spend }),
        });
        if (!done) return;
        completed = done;
        crashPoint('track.attempt-completed');
        break;
      }
      case 'completeIntoReview': {
        const pull = pullNow();
        crashPoint('track.before-complete');
        // The completion, the PR's row and the move into review are one write.
        const done = await engine.store.runs.completeIntoReview({
          attemptId: attempt.id,
          task,
          spend: effect.spend,
          pull: {
            ...pullValues(scope.repositoryId, pull),
            agentConfigChanged: effect.agentConfigChanged,
          },
        });
        if (!done) return;
        crashPoint('track.attempt-completed');
        if (!done.task) return;
        completed = done.attempt;
        runSpentUsd = done.attempt.runSpentUsd;
        crashPoint('track.in-review');
        log.info({ pr: pull.number }, 'attempt succeeded; PR in review');
        break;
      }
      case 'completeFailed': {
        const done = await engine.store.attempts.complete(attempt.id, {
          conclusion: effect.conclusion,
          failureReason: effect.failureReason,
          ...effect.usage,
        });
        if (!done) return;
        completed = done;
        crashPoint('track.attempt-completed');
        break;
      }
      case 'enterReview': {
        const pull = pullNow();
        await recordPull(engine, scope.repositoryId, task.id, pull, effect.agentConfigChanged);
        // An approval given while the worker was still finishing stands if it is for this head.
        if (!(await engine.store.runs.enterReview(task.id, pull.number, pull.headSha))) return;
        crashPoint('track.in-review');
        log.info({ pr: pull.number }, 'attempt succeeded; PR in review');
        break;
      }
      case 'retryOrFail':
        await recordFailedAttempt(engine, scope, task, completed, effect.reason);
        break;
      case 'requestReviewAgain':
        await requestReviewAgain(engine, scope, completed.review, pullNow().number);
        break;
      case 'enforceBudget':
        await enforceBudget(engine, scope, runSpentUsd);
        break;
      case 'requestStatus':
        engine.requestStatus(scope.run.id);
        break;
      case 'advance':
        // The PR as just read in full (GitHubPort.pull) is GitHub's view for the merge decision.
        await advanceRun(engine, scope, found?.read ? [found.read] : undefined);
        break;
    }
  }
}

/**
 * The task's open agent PR as GitHub shows it now, recorded and linked to the task: a command
 * or review may arrive before the delivery that announced the PR has been handled. Returns the
 * task as it is after the link.
 */
export async function currentPullOf(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
): Promise<{
  pull: PullInfo;
  task: TaskRow;
  workPushedAt: Date | null;
  deliveredHead: string | null;
  update: BranchUpdate | null;
} | null> {
  const pull = (await openAgentPullOf(engine, scope, task))?.pull;
  if (!pull) return null;
  const linked = await linkPullRequest(engine, scope.repositoryId, pull, {
    known: { run: scope.run, task },
  });
  return linked && linked.task.id === task.id
    ? {
        pull,
        task: linked.task,
        workPushedAt: linked.workPushedAt,
        deliveredHead: linked.deliveredHead,
        update: linked.update,
      }
    : null;
}

/**
 * The task's open PR from this repository (core's `isOpenAppPull`): the one it links,
 * read in full by number (`read`: the merge decision that follows takes it as GitHub's view, one
 * read of the PR), or else the one on its branch, looked up.
 */
async function openAgentPullOf(
  engine: Engine,
  scope: RunScope,
  task: TaskRow,
): Promise<{ pull: PullInfo; read: PullState | null } | null> {
  const known = task.prNumber === null ? null : await scope.port.pull(scope.repo, task.prNumber);
  if (known && isOpenAppPull(known, scope.repositoryId, await engine.appLogin()))
    return { pull: known, read: known };
  const pull = await appPullForBranch(
    engine,
    scope,
    taskBranch(scope.run.issueNumber, task.taskKey),
  );
  return pull ? { pull, read: null } : null;
}

export interface PullEventInfo {
  number: number;
  nodeId: string;
  /** Who opened the PR: a task's PR is the App's (core's isOpenedByApp). */
  userLogin: string;
  headRef: string;
  headSha: string;
  headRepoId: number | null;
  baseRef: string;
  state: string;
  merged: boolean;
  /** The head before a push (`pull_request.synchronize`); `headSha` is the head it made. */
  before?: string;
  /** With `before`: the push's `pull_request.updated_at`, when GitHub dates it. */
  pushedAt?: Date;
  /**
   * The `pull_request.updated_at` of an `opened` or `synchronize` delivery: when `headSha`
   * reached the PR.
   */
  headArrivedAt?: Date;
  /**
   * The head GitHub shows now, when read: recorded instead of `headSha`, which a late delivery
   * may carry from before a newer push.
   */
  currentHeadSha?: string;
  /**
   * The PR's body, when the caller has it (GitHub's now, where it was read): the agent
   * configuration files its agent-config marker lists are recorded for the status comment.
   */
  body?: string;
  /**
   * Not read from GitHub: the delivery's PR, which may be older than what is recorded. It makes
   * the PR's row when none exists, and changes no recorded head, base, state or merge.
   */
  asDelivered?: boolean;
}

/** A PR whose head is a task branch of this same repository, for a task of the issue's run. */
export async function linkPullRequest(
  engine: Engine,
  repositoryId: number,
  pull: PullEventInfo,
  options: {
    /** The run and task the caller read already: used when the branch names them. */
    known?: { run: RunRow; task: TaskRow };
  } = {},
): Promise<{
  run: RunRow;
  task: TaskRow;
  repository?: RepositoryRow;
  /** When new work last reached the PR, as far as the deliveries handled show. */
  workPushedAt: Date | null;
  /** The head of the latest-dated `opened` or `synchronize` delivery handled. */
  deliveredHead: string | null;
  /** The coordinator's update of the branch, while its push is still to be handled. */
  update: BranchUpdate | null;
  /** This sighting is a push of new work: not the coordinator's own update of the branch. */
  pushOfWork: boolean;
} | null> {
  if (!isAgentPull(pull, repositoryId)) return null;
  if (!isOpenedByApp(pull, await engine.appLogin())) {
    engine.log.warn(
      { pr: pull.number, branch: pull.headRef, author: pull.userLogin },
      "a PR on a task branch that the App did not open: not the task's, ignored",
    );
    return null;
  }
  const parsed = parseTaskBranch(pull.headRef)!;
  const { known } = options;
  const isKnown =
    known?.run.issueNumber === parsed.issueNumber && known.task.taskKey === parsed.taskKey;
  const found = isKnown
    ? known
    : await engine.store.runs.latestRunWithTask(repositoryId, parsed.issueNumber, parsed.taskKey);
  if (!found?.task) return null;
  const { run } = found;
  let { task } = found;
  let row = await recordPull(
    engine,
    repositoryId,
    task.id,
    { ...pull, headSha: pull.currentHeadSha ?? pull.headSha },
    undefined,
    { asDelivered: pull.asDelivered },
  );
  const event = {
    number: pull.number,
    head: pull.headSha,
    state: pull.state,
    merged: pull.merged,
    ...(pull.before === undefined ? {} : { before: pull.before }),
    ...(pull.pushedAt === undefined ? {} : { pushedAt: pull.pushedAt }),
    ...(pull.headArrivedAt === undefined ? {} : { headArrivedAt: pull.headArrivedAt }),
    ...(pull.body === undefined ? {} : { body: pull.body }),
  };
  const asRead = decidePullLink({ task, row }, event);
  if ('awaitUpdate' in asRead) {
    // A push from the head an update is out for: every update is asked and answered within the
    // repository's merge turn, so once that turn is over the row says whether this is it.
    row = await rowAfterMergeTurn(engine, repositoryId, row);
  }
  const { pushOfWork, effects } =
    'awaitUpdate' in asRead ? decidePullLink({ task, row, afterTurn: true }, event) : asRead;
  let { workPushedAt, deliveredHead } = row;
  let update = updateOf(row);
  for (const effect of effects) {
    switch (effect.kind) {
      case 'recordAgentConfig':
        if (await engine.store.pulls.recordAgentConfig(row.id, run.id, effect.paths))
          engine.requestStatus(run.id);
        break;
      case 'recordWorkPushed':
        workPushedAt = await engine.store.pulls.recordWorkPushed(row.id, effect.at);
        break;
      case 'recordDeliveredHead':
        deliveredHead = await engine.store.pulls.recordDeliveredHead(
          row.id,
          effect.head,
          effect.at,
        );
        break;
      case 'carryApproval':
        // The approval's author (`approvedBy`) and time stay: it is their approval, moved.
        task =
          (await engine.store.runs.updateTaskFields(
            task.id,
            { approvedSha: effect.approvedSha },
            { expected: task.state },
          )) ?? task;
        break;
      case 'clearUpdate':
        if (update) await engine.store.pulls.clearUpdate(row.id, update.from);
        update = null;
        break;
      case 'linkTask':
        task =
          (await engine.store.runs.updateTaskFields(
            task.id,
            { prNumber: effect.prNumber },
            { expected: task.state },
          )) ?? task;
        break;
      case 'requestStatus':
        engine.requestStatus(run.id);
        break;
    }
  }
  return {
    run,
    task,
    repository: 'repository' in found ? found.repository : undefined,
    workPushedAt,
    deliveredHead,
    update,
    pushOfWork,
  };
}

/**
 * An agent PR appeared or moved (opened, pushed, edited, ready): it is linked to its task, then
 * core decides (`decidePullChanged`: its changed files read, an approval the push's work
 * withdraws, the run's merges decided again) and the effects are applied. Two pushes' deliveries can arrive in either order,
 * so the head recorded is GitHub's now, never an older one a late delivery carries; a PR's first
 * event (`asDelivered`) makes its row and changes no recorded head.
 */
export async function onPullRequestChanged(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  repositoryId: number,
  pull: PullEventInfo,
): Promise<PullRefusal | undefined> {
  if (!isAgentPull(pull, repositoryId)) return undefined;
  if (!isOpenedByApp(pull, await engine.appLogin()))
    return onLookAlikePull(engine, { port, repo }, pull);
  // A PR's first event needs no read: as delivered, it is recorded only where nothing newer was
  // (a late delivery changes no row), and the attempt's completion reads the PR before any
  // merge decision. GitHub computes its mergeability from its creation on.
  const current =
    !pull.asDelivered && repo.owner && repo.repo ? await port.pull(repo, pull.number) : null;
  const linked = await linkPullRequest(engine, repositoryId, {
    ...pull,
    // GitHub's base now: a late delivery's base may predate a retarget (docs/stacking.md).
    ...(current
      ? {
          state: current.state,
          merged: current.merged,
          body: current.body,
          baseRef: current.baseRef,
          userLogin: current.userLogin,
        }
      : {}),
    ...(pull.asDelivered ? { body: undefined } : {}),
    currentHeadSha: current?.headSha,
  });
  const head = current?.headSha ?? pull.headSha;
  const effects = decidePullChanged(
    linked && {
      runFinished: linked.run.finishedAt !== null,
      task: linked.task,
      pushOfWork: linked.pushOfWork,
      changedFiles: linked.task,
    },
    {
      head,
      ...(pull.pushedAt === undefined ? {} : { pushedAt: pull.pushedAt }),
    },
  );
  for (const effect of effects) {
    if (effect.kind === 'none') {
      engine.log.debug({ pr: pull.number, why: effect.reason }, 'PR changed: nothing to do');
      continue;
    }
    // decidePullChanged acts only on a task it was shown.
    if (!linked) throw new Error(`no task for PR #${pull.number}`);
    switch (effect.kind) {
      case 'recordChangedFiles':
        // A payload that names no repository is nothing to ask GitHub about.
        if (repo.owner)
          await recordChangedFiles(engine, port, repo, repositoryId, linked.task, {
            number: pull.number,
            head,
          });
        break;
      case 'withdrawApproval':
        await withdrawApproval(engine, port, repo, linked.task, pull.number, effect);
        break;
      case 'advance':
        await advanceRun(
          engine,
          await loadRunScope(engine, linked.run, port, linked.repository),
          current ? [current] : undefined,
        );
        break;
    }
  }
  return undefined;
}

/**
 * The agent PR's row with its task and run. A review can be handled before the delivery that
 * announced the PR (GitHub delivers late and out of order): then it is linked now.
 */
export async function recordedAgentPull(engine: Engine, repositoryId: number, pull: PullEventInfo) {
  const { pulls } = engine.store;
  return (
    (await pulls.withTask(repositoryId, pull.number)) ??
    ((await linkPullRequest(engine, repositoryId, pull)) &&
      (await pulls.withTask(repositoryId, pull.number)))
  );
}

/**
 * A close refused, with whether its closer is answered (then the PR was asked to open again), and
 * `recordedBefore`: an earlier handling of the delivery recorded it, and may have answered it.
 */
export type CloseRefusal = PullRefusal & { answered: boolean; recordedBefore: boolean };

/**
 * A merged agent PR merges its task and frees its dependents; one closed unmerged by a person
 * rejects the task and blocks what depends on it.
 */
export function onPullRequestClosed(
  engine: Engine,
  github: { port: GitHubPort; repo: RepoCoords },
  repositoryId: number,
  pull: PullEventInfo,
  closedBy: ClosedBy,
): Promise<CloseRefusal | undefined> {
  return schedulingOnce(engine, () =>
    pullRequestClosed(engine, github, repositoryId, pull, closedBy),
  );
}

async function pullRequestClosed(
  engine: Engine,
  { port, repo }: { port: GitHubPort; repo: RepoCoords },
  repositoryId: number,
  pull: PullEventInfo,
  closedBy: ClosedBy,
): Promise<CloseRefusal | undefined> {
  const closed = { merged: pull.merged, closedByBot: closedBy.isBot };
  // Merged by the coordinator (or seen merged before): the task's merge freed its dependents in
  // the same statement, so recording the PR closed is all that is left. Scheduling and the run's
  // close-out, if a crash cut them short, are the sweep's (docs/running.md, "The sweep").
  if (
    closedRecordsMergeFirst(closed) &&
    isAgentPull(pull, repositoryId) &&
    (await engine.store.pulls.recordMergedOfMergedTask(repositoryId, pull.number, pull.headSha))
  )
    return undefined;
  if (!isAgentPull(pull, repositoryId)) return undefined;
  // A person's close is what may reject the task: the PR as GitHub shows it now decides, since the
  // delivery may be sent again under a new id, or come after the PR was opened again.
  const reads = readsCloserRole(closed) && Boolean(repo.owner && repo.repo);
  const current = reads ? await port.pull(repo, pull.number) : null;
  const linked = await linkPullRequest(
    engine,
    repositoryId,
    current
      ? { ...pull, state: current.state, merged: current.merged, currentHeadSha: current.headSha }
      : pull,
  );
  if (!linked) return undefined;
  const { run, task } = linked;
  // Asked of GitHub, not the minute's cache, as for `/veto`: the rejection is what write grants.
  const closerRole = reads ? await freshRoleOf(engine, port, repo, closedBy.login) : undefined;
  const event = {
    ...closed,
    number: pull.number,
    baseRef: pull.baseRef,
    ...(closerRole ? { closerRole } : {}),
  };
  let refusal: CloseRefusal | undefined;
  let reopened = false;
  const log = engine.log.child({ run: run.id, task: task.taskKey, pr: pull.number });
  let scope: RunScope | undefined;
  const scopeOf = async () =>
    (scope ??= await loadRunScope(engine, run, undefined, linked.repository));
  const snapshot = {
    task,
    runBase: await runBaseOf(run, port, repo),
    ...(current ? { now: current } : {}),
  };
  // A close core refuses is recorded before anything is done, with whether the refusal budget
  // lets it be opened again: core decides again with the answer when it does not.
  let effects = decidePullClosed(snapshot, event);
  const refused = effects.find((effect) => effect.kind === 'refuse');
  const recorded =
    refused &&
    (await recordRefusedClose(
      engine,
      { repositoryId, number: pull.number, runId: run.id, role: refused.role },
      closedBy,
    ));
  if (recorded && !recorded.answered)
    effects = decidePullClosed({ ...snapshot, reopenWithinBudget: false }, event);
  for (const effect of effects) {
    switch (effect.kind) {
      case 'none':
        log.debug({ why: effect.reason }, 'PR closed: nothing to do');
        break;
      case 'markMerged':
        if (!(await markTaskMerged(engine, await scopeOf(), task.id, task.taskKey))) return refusal;
        break;
      case 'reject':
        if (!(await engine.store.runs.transitionTask(task.id, 'rejected'))) return refusal;
        break;
      case 'blockDependents': {
        const blocked = await blockDependents(engine, run.id, task.taskKey);
        log.info(
          { by: closedBy.login, blocked, merged: pull.merged, base: pull.baseRef },
          pull.merged
            ? "PR merged into another branch than the run's base; task rejected"
            : 'PR closed unmerged; task rejected',
        );
        break;
      }
      case 'requestStatus':
        engine.requestStatus(run.id);
        break;
      case 'settle':
        await settleRun(engine, await scopeOf());
        break;
      case 'advance':
        await advanceRun(engine, await scopeOf());
        break;
      case 'reopen':
        reopened = await port.setPullState(repo, pull.number, 'open');
        log.info(
          { by: closedBy.login, role: closerRole, reopened },
          'PR closed by a user without write access; reopened if GitHub let it',
        );
        break;
      case 'refuse': {
        const reason = closeRefusalReason(
          effect.role,
          effect.leftClosed ? 'left_closed' : reopened ? 'reopened' : 'refused_by_github',
        );
        const answered = recorded?.answered ?? false;
        // Recorded as reopened before GitHub was asked; the log says what GitHub answered.
        if (recorded && answered && recorded.row.outcome !== reason)
          await engine.store.commands.rewordAnsweredRefusal(recorded.row.id, reason);
        refusal = {
          name: 'close',
          runId: run.id,
          role: effect.role,
          reason,
          answered,
          recordedBefore: recorded?.recordedBefore ?? false,
        };
        break;
      }
    }
  }
  return refusal;
}

type SeenPull = Pick<
  PullEventInfo,
  'number' | 'nodeId' | 'headRef' | 'headSha' | 'baseRef' | 'state' | 'merged'
>;

/**
 * The task's PR as GitHub last showed it, from a listing or from a pull_request event; with the
 * agent configuration its body lists, when the caller read the body and needs no status of it.
 */
function recordPull(
  engine: Engine,
  repositoryId: number,
  taskId: number,
  pull: SeenPull,
  agentConfigChanged?: string[],
  options?: { asDelivered?: boolean },
) {
  return engine.store.pulls.upsert(
    {
      ...pullValues(repositoryId, pull),
      taskId,
      ...(agentConfigChanged ? { agentConfigChanged } : {}),
    },
    options,
  );
}

/** A PR row's GitHub side. */
function pullValues(repositoryId: number, pull: SeenPull) {
  return {
    repositoryId,
    number: pull.number,
    nodeId: pull.nodeId,
    headRef: pull.headRef,
    headSha: pull.headSha,
    baseRef: pull.baseRef,
    state: pull.state,
    merged: pull.merged,
  };
}
