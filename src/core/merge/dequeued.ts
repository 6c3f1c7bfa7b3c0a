import type { TaskState } from '../states.js';
import type { TaskMove } from '../transitions.js';
import { isMergeClaimed, mergeReleased } from '../lifecycle/facts.js';
import { nothing, type NoEffect } from '../no-effect.js';

/** A `pull_request.dequeued` delivery: the PR left GitHub's merge queue. */
export interface DequeuedEvent {
  /** GitHub's reason: MERGE, CI_FAILURE, MERGE_CONFLICT, MANUAL, ... */
  reason: string;
  baseRef: string;
}

/** The PR's task as the store has it; none when the PR is no agent PR the coordinator knows. */
export interface DequeuedSnapshot {
  task: { state: TaskState; approvedSha: string | null } | null;
  /** The run's merge.requireApproval. */
  requireApproval: boolean;
}

export type DequeuedEffect =
  | NoEffect
  /** Back to the worker in mode=fix with this feedback (within retries.max). */
  | { kind: 'sendBack'; feedback: string }
  /** The merge claim is given back: the PR is no longer queued and the task waits again. */
  | { kind: 'releaseMerge'; move: TaskMove }
  /** Decide the run's merges again. */
  | { kind: 'advance' };

/** Whether the decision needs the PR's task: a PR the queue merged is its closed event's. */
export function readsTaskOnDequeue(event: DequeuedEvent): boolean {
  return event.reason !== 'MERGE';
}

/**
 * docs/lifecycle.md step 9 and `merge released`: a PR that left the merge queue without merging
 * waits again, or goes back to its worker when the queue found its checks failing or a conflict.
 */
export function decideDequeued(snapshot: DequeuedSnapshot, event: DequeuedEvent): DequeuedEffect[] {
  if (!readsTaskOnDequeue(event))
    return nothing('merged by the queue: its closed event records it');
  const { task } = snapshot;
  if (!task) return nothing('not an agent PR of a known task');
  if (!isMergeClaimed(task.state)) return nothing(`the task is ${task.state}, not merging`);
  // The order check failed the group because the approval no longer counts (its author lost
  // write access, merge-group.ts): the PR needs a person, not its worker.
  const approvalGone = snapshot.requireApproval && !task.approvedSha;
  if (event.reason === 'CI_FAILURE' && !approvalGone)
    return [
      {
        kind: 'sendBack',
        feedback:
          'The merge queue removed the PR: checks failed on the merge group. Make them pass.',
      },
    ];
  if (event.reason === 'MERGE_CONFLICT')
    return [
      {
        kind: 'sendBack',
        feedback: `The merge queue removed the PR: it conflicts with ${event.baseRef}. Merge ${event.baseRef} in and resolve the conflicts.`,
      },
    ];
  return [{ kind: 'releaseMerge', move: mergeReleased(task) }, { kind: 'advance' }];
}
