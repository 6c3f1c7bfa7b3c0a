import type { TaskState } from '../states.js';
import type { TaskMove } from '../transitions.js';
import { canMoveTask } from '../transitions.js';
import { nothing, type NoEffect } from '../no-effect.js';
import { approvalAfterPush } from './approval.js';
import { changedFilesCurrent, type RecordedChangedFiles } from './changed-files.js';

/** An agent PR opened, reopened, pushed to, edited or marked ready, once linked to its task. */
export interface PullChangedSnapshot {
  runFinished: boolean;
  task: { state: TaskState; approvedSha: string | null; approvedAt: Date | null };
  /** This delivery is a push of new work (core's decidePush): not the coordinator's update. */
  pushOfWork: boolean;
  /** The files the task's PR changes as recorded (`tasks.changed_files`), and at which head. */
  changedFiles: RecordedChangedFiles;
}

export interface PullChangedEvent {
  /** The PR's head as GitHub shows it now (or as the delivery has it, when not read). */
  head: string;
  /** A push's `pull_request.updated_at`, when GitHub dates it. */
  pushedAt?: Date;
}

export type PullChangedEffect =
  | NoEffect
  /**
   * The files the PR changes are read and recorded for the overlap decisions still to come
   * (docs/lifecycle.md, "Overlapping files"): none are recorded for the PR's head (it opened,
   * or a push moved it).
   */
  | { kind: 'recordChangedFiles' }
  /**
   * A plain `/approve` written before the push covers none of its work: the approval is taken
   * back (by `move` when the task is in review, as fields otherwise) under a guarded write, and
   * when that takes the PR gets `reply`.
   */
  | { kind: 'withdrawApproval'; move?: TaskMove; reply: string }
  /** Decide the run's merges again. */
  | { kind: 'advance' };

/**
 * docs/lifecycle.md steps 8–9: an agent PR that appeared or moved re-decides its run's merges,
 * once its changed files are recorded for its head (`changedFilesCurrent`); new work pushed after
 * a plain `/approve` was written withdraws that approval first (`approvalAfterPush`), whichever
 * of the two deliveries was handled first.
 */
export function decidePullChanged(
  snapshot: PullChangedSnapshot | null,
  event: PullChangedEvent,
): PullChangedEffect[] {
  if (!snapshot) return nothing('not an agent PR of a known task');
  if (snapshot.runFinished) return nothing('the run is finished');
  const effects: PullChangedEffect[] = [];
  if (!changedFilesCurrent(snapshot.changedFiles, event.head))
    effects.push({ kind: 'recordChangedFiles' });
  if (snapshot.pushOfWork && event.pushedAt !== undefined) {
    const verdict = approvalAfterPush(snapshot.task, { head: event.head, at: event.pushedAt });
    if (verdict.kind === 'withdraw')
      effects.push({
        kind: 'withdrawApproval',
        ...(canMoveTask(snapshot.task.state, 'approval withdrawn')
          ? { move: 'approval withdrawn' as const }
          : {}),
        reply: verdict.reply,
      });
  }
  effects.push({ kind: 'advance' });
  return effects;
}
