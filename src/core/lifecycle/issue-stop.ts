import { WRITE_ROLES, type RoleName } from '../roles.js';

/** An `issues.closed`, or an `issues.unlabeled` of the run's trigger label, on an issue with an active run. */
export interface IssueStopEvent {
  action: 'closed' | 'unlabeled';
  /** The sender's permission on the repository (bots, never collaborators, come out `none`). */
  senderRole: RoleName;
}

/** The issue as GitHub shows it now, or null when it could not be read. */
export interface IssueNow {
  state: string;
  labels: readonly string[];
}

export type IssueStopVerdict =
  | { kind: 'cancel'; why: 'issue closed' | 'label removed' }
  /** Undone since (label back, issue reopened): nothing to do. */
  | { kind: 'undone' }
  /** Done by someone who may not stop the run: it goes on, and they are told why. */
  | { kind: 'refuse'; reason: string };

/**
 * docs/lifecycle.md step 11: removing the label or closing the issue cancels the run, as `/cancel`
 * does, and so only for people who may use `/cancel`. GitHub lets an issue's author close it with
 * no access to the repository, and the triage role close any issue and remove labels: neither
 * stops the paid runs a person with write access started. GitHub delivers in no set order, so
 * a label put back or an issue reopened since (as GitHub shows it now) changes nothing.
 */
export function decideIssueStop(
  event: IssueStopEvent,
  now: IssueNow | null,
  triggerLabel: string,
): IssueStopVerdict {
  if (now && event.action === 'unlabeled' && now.labels.includes(triggerLabel))
    return { kind: 'undone' };
  if (now && event.action === 'closed' && now.state !== 'closed') return { kind: 'undone' };
  const what = event.action === 'closed' ? 'closing the issue' : 'removing the label';
  if (!WRITE_ROLES.has(event.senderRole))
    return {
      kind: 'refuse',
      reason: `${what} does not cancel the agent-coordinator run: only people with write access can (your role: ${event.senderRole}); the run goes on`,
    };
  return { kind: 'cancel', why: event.action === 'closed' ? 'issue closed' : 'label removed' };
}
