import type { IssueNow } from './issue-stop.js';

/** What an `issues.labeled` of the trigger label, from a write+ sender, is decided on. */
export interface LabelStartFacts {
  /** The trigger label (the repository's config). */
  triggerLabel: string;
  /** The signed payload's `issue.updated_at`: GitHub's time of this label, to the second. */
  updatedAt: string;
  /** The issue as GitHub shows it now, or null when it is gone. */
  now: IssueNow | null;
  /** The issue's newest run, if it has one. */
  latest: {
    finished: boolean;
    createdAt: Date;
    /** `issue.updated_at` of the label event that started it; null for runs from before it was kept. */
    triggerUpdatedAt: Date | null;
  } | null;
  /** When this delivery id first reached the inbox, when known. */
  deliveryReceivedAt: Date | null;
}

export type LabelStartVerdict =
  | { kind: 'start' }
  /** Nothing starts; `why` is for the log. */
  | { kind: 'ignore'; why: string };

/**
 * docs/lifecycle.md step 1. The delivery id is not signed, so a captured label event can be
 * sent again under a new one (SPEC.md §4): the payload alone never starts a run. It starts one
 * only while GitHub shows the issue open and carrying the label now, and only when the label is
 * newer than the one that started the issue's last finished run. That order is read on GitHub's
 * own clock: adding or removing a label moves the issue's `updated_at`, and a relabel comes after
 * the unlabel or close that ended the last run, so only that run's trigger or an older label
 * event carries an `updated_at` no later than the trigger's. An active run is left to
 * `startRun`: its own delivery retried finishes an interrupted start, any other changes nothing.
 */
export function decideLabelStart(facts: LabelStartFacts): LabelStartVerdict {
  const { now, latest } = facts;
  const at = Date.parse(facts.updatedAt);
  // GitHub dates every issue; an undated payload cannot be ordered after anything.
  if (Number.isNaN(at)) return { kind: 'ignore', why: 'the label event has no issue.updated_at' };
  if (!now) return { kind: 'ignore', why: 'the issue is gone' };
  if (now.state !== 'open') return { kind: 'ignore', why: 'the issue is closed now' };
  if (!now.labels.includes(facts.triggerLabel))
    return { kind: 'ignore', why: 'the label is no longer on the issue' };
  if (!latest?.finished) return { kind: 'start' };
  // The inbox dates a delivery id on our clock: the finished run's own trigger handled again.
  if (facts.deliveryReceivedAt && latest.createdAt >= facts.deliveryReceivedAt)
    return { kind: 'ignore', why: 'label event older than the finished run it started' };
  if (latest.triggerUpdatedAt && at <= latest.triggerUpdatedAt.getTime())
    return { kind: 'ignore', why: 'label event no later than the one that started the last run' };
  return { kind: 'start' };
}
