import { createHash } from 'node:crypto';

/**
 * The command log is keyed by comment; a refused label has none, so it is recorded under a
 * stand-in derived from its delivery id (a redelivery keeps the id, so it is recorded once).
 */
export function labelRefusalKey(deliveryId: string): number {
  return standIn(deliveryId);
}

/**
 * The stand-in for one label event, from what its signed payload says (the issue, the label and
 * the issue's `updated_at`, which adding a label moves): every delivery of the event has it,
 * whatever delivery id it came under, while a relabel has another.
 */
export function labelEventKey(event: {
  repositoryId: number;
  issueNumber: number;
  label: string;
  updatedAt: string;
}): number {
  return standIn(
    JSON.stringify([event.repositoryId, event.issueNumber, event.label, event.updatedAt]),
  );
}

/** Negative, where GitHub's comment ids are positive. */
function standIn(text: string): number {
  const digest = createHash('sha256').update(text).digest();
  return -(digest.readUIntBE(0, 6) + 1);
}
