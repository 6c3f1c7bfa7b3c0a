import { nothing, type NoEffect } from '../no-effect.js';
import { WRITE_ROLES, type RoleName } from '../roles.js';
import { parseTaskBranch } from '../../protocol/branch.js';
import { parseAgentConfigMarker } from '../../protocol/markers.js';
import { PLAN_TASK_KEY } from '../plan/index.js';
import { decidePush } from './approval.js';
import { isOpenPullOfRepository } from './attempt-completed.js';

/**
 * Fork PRs and look-alike branches are never agent PRs: only a task branch of this same
 * repository (the planner's task `plan` has no PR).
 */
export function isAgentPull(
  pull: { headRepoId: number | null; headRef: string },
  repositoryId: number,
): boolean {
  const parsed = pull.headRepoId === repositoryId ? parseTaskBranch(pull.headRef) : null;
  return parsed !== null && parsed.taskKey !== PLAN_TASK_KEY;
}

/**
 * A task's PR is one the App opened: the publish job opens it with the App's installation token
 * (docs/worker.md), so its author is the App's bot (`<slug>[bot]`). Anyone who can read the
 * repository can open a PR from a task branch onto any branch, and its author controls its body
 * (the usage and agent-config markers) and who may close it: such a PR is never the task's.
 */
export function isOpenedByApp(pull: { userLogin: string }, appLogin: string): boolean {
  return pull.userLogin.toLowerCase() === appLogin.toLowerCase();
}

/** An open PR from this repository that the App opened: one a task may have. */
export function isOpenAppPull(
  pull: { state: string; merged?: boolean; headRepoId: number | null; userLogin: string },
  repositoryId: number,
  appLogin: string,
): boolean {
  return isOpenPullOfRepository(pull, repositoryId) && isOpenedByApp(pull, appLogin);
}

export type LookAlikePullEffect =
  | NoEffect
  /** Closed (`PATCH /pulls/{n}`, `state: closed`). */
  | { kind: 'close' }
  /** Its author told why, as a refused command is answered (within the refusal budget). */
  | { kind: 'refuse'; role: RoleName; reason: string };

/**
 * An open PR from a task branch that the App did not open (isOpenedByApp). GitHub allows one open
 * PR per head and base, so such a PR onto the task's base keeps the publish job from opening the
 * task's own, and every attempt fails: opened by someone without write access, it is closed and
 * its author told why. One opened by someone with write access stays (they may close it, and
 * they may open the task's PR by hand) but is never the task's.
 */
export function decideLookAlikePull(
  pull: { state: string },
  authorRole: RoleName,
): LookAlikePullEffect[] {
  if (pull.state !== 'open') return nothing('closed already');
  if (WRITE_ROLES.has(authorRole))
    return nothing("opened by someone with write access: left open, never the task's");
  return [
    { kind: 'close' },
    {
      kind: 'refuse',
      role: authorRole,
      reason: `pull requests from agent-coordinator task branches are the App's: only people with write access may open one (your role: ${authorRole}), so this one was closed`,
    },
  ];
}

/** An agent PR's task and the PR's row, as recording the sighting left it. */
export interface PullLinkSnapshot {
  task: { prNumber: number | null; approvedSha: string | null };
  /** The upsert of GitHub's view leaves the coordinator's own columns as they were. */
  row: {
    updatedByCoordinatorFrom: string | null;
    updatedByCoordinatorTo: string | null;
    agentConfigChanged: readonly string[];
  };
  /** The row was read again once the repository's merge turn was over (decidePush's `afterTurn`). */
  afterTurn?: boolean;
}

/** A sighting of an agent PR: a pull_request delivery, or GitHub's view read for one. */
export interface PullLinkEvent {
  number: number;
  /** The head the delivery carries (after a push). */
  head: string;
  /** The head before a push (`pull_request.synchronize`). */
  before?: string;
  /** With `before`: the push's `pull_request.updated_at`, when GitHub dates it. */
  pushedAt?: Date;
  /**
   * When GitHub dates `head` reaching the PR: the `pull_request.updated_at` of an `opened` or
   * `synchronize` delivery, whose head is the event's own (never a read's, which may be newer).
   */
  headArrivedAt?: Date;
  /** The PR's body, when the caller has it (GitHub's now, where it was read). */
  body?: string;
  /** The PR's state and whether it is merged, as the sighting shows them (`isEarlierPull`). */
  state?: string;
  merged?: boolean;
}

/** Carried out in order; none of them stops the others. */
export type PullLinkEffect =
  /**
   * The agent configuration files the body's marker lists (docs/worker.md, "Agent
   * configuration"), which differ from the row's: the status comment shows them. Only the
   * publish job writes the marker, but anyone who may edit the PR (write access) can change it:
   * the warning is as good as the people with write access.
   */
  | { kind: 'recordAgentConfig'; paths: string[] }
  /** New work reached the PR at `at` (the row keeps the latest). */
  | { kind: 'recordWorkPushed'; at: Date }
  /** `head` reached the PR at `at`: the row keeps the latest-dated head (its `deliveredHead`). */
  | { kind: 'recordDeliveredHead'; head: string; at: Date }
  /** The coordinator's own update of an approved head: the new head inherits the approval. */
  | { kind: 'carryApproval'; approvedSha: string }
  /** New work replaced the head the coordinator updated from: that update's record is spent. */
  | { kind: 'clearUpdate' }
  /** The task links this PR from now on. */
  | { kind: 'linkTask'; prNumber: number }
  | { kind: 'requestStatus' };

export interface PullLinkOutcome {
  /** This sighting is a push of new work: not the coordinator's own update of the branch. */
  pushOfWork: boolean;
  effects: PullLinkEffect[];
}

export type PullLinkDecision =
  | PullLinkOutcome
  /**
   * A push from the head an update is out for, whose answer is not recorded yet (decidePush's
   * `await_update`): nothing is recorded; the sighting is decided again, on the row as it is once
   * the repository's merge turn is over.
   */
  | { awaitUpdate: true };

/**
 * docs/lifecycle.md step 8: what a sighting of a task's agent PR records. Its agent
 * configuration marker, when the body is known and lists other files; for a push, whether it is
 * new work (`decidePush`), which dates the PR's latest work, or the coordinator's own update (the
 * merge commit GitHub answered its update with), which carries an approval of the head it merged
 * the base into, or one to decide again once the update's answer is recorded; for
 * a delivery that dates its head, that head (a plain `/approve` approves no other,
 * `commandApproval`); and the task's link to the PR.
 */
export function decidePullLink(
  snapshot: PullLinkSnapshot & { afterTurn: true },
  event: PullLinkEvent,
): PullLinkOutcome;
export function decidePullLink(snapshot: PullLinkSnapshot, event: PullLinkEvent): PullLinkDecision;
export function decidePullLink(snapshot: PullLinkSnapshot, event: PullLinkEvent): PullLinkDecision {
  const { row } = snapshot;
  const push =
    event.before === undefined
      ? undefined
      : decidePush({
          before: event.before,
          after: event.head,
          update:
            row.updatedByCoordinatorFrom === null
              ? null
              : { from: row.updatedByCoordinatorFrom, to: row.updatedByCoordinatorTo },
          approvedSha: snapshot.task.approvedSha,
          afterTurn: snapshot.afterTurn === true,
        });
  if (push?.kind === 'await_update') return { awaitUpdate: true };
  const effects: PullLinkEffect[] = [];
  if (event.body !== undefined) {
    const paths = parseAgentConfigMarker(event.body);
    if (!samePaths(row.agentConfigChanged, paths))
      effects.push({ kind: 'recordAgentConfig', paths });
  }
  const pushOfWork = push?.work ?? false;
  if (pushOfWork && event.pushedAt !== undefined)
    effects.push({ kind: 'recordWorkPushed', at: event.pushedAt });
  if (event.headArrivedAt !== undefined)
    effects.push({ kind: 'recordDeliveredHead', head: event.head, at: event.headArrivedAt });
  if (push?.approvedSha !== undefined)
    effects.push({ kind: 'carryApproval', approvedSha: push.approvedSha });
  if (push?.clearUpdate) effects.push({ kind: 'clearUpdate' });
  if (snapshot.task.prNumber !== event.number && !isEarlierPull(snapshot.task, event))
    effects.push({ kind: 'linkTask', prNumber: event.number }, { kind: 'requestStatus' });
  return { pushOfWork, effects };
}

/**
 * A PR closed unmerged while its task links another is an earlier PR of the task: a task retried
 * after its PR was closed opens a new one (the publish job takes only an open PR for the task's).
 * A sighting of it, a late or replayed `closed` delivery among them, neither links the task to it
 * nor rejects the task (core's decidePullClosed).
 */
export function isEarlierPull(
  task: { prNumber: number | null },
  pull: { number: number; state?: string; merged?: boolean },
): boolean {
  const closedUnmerged = pull.state === 'closed' && pull.merged !== true;
  return closedUnmerged && task.prNumber !== null && task.prNumber !== pull.number;
}

function samePaths(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
}
