import { createHash } from 'node:crypto';
import { mayReplyToRefusal, REFUSAL_REPLY_WINDOW_MS } from '../core/commands/index.js';
import type { Store } from '../store/index.js';

/**
 * Whether a refusal is answered: core's mayReplyToRefusal on the replies the command log shows
 * in the last window, so that nobody can spend the installation's write budget (GitHub's
 * secondary limits: 80 content writes a minute, 500 an hour) by posting commands.
 */
export async function mayAnswerRefusal(
  store: Store,
  refusal: { repositoryId: number; issueNumber: number; actor: string; commentId: number },
  now: Date,
): Promise<boolean> {
  const sent = await store.commands.refusalRepliesSince({
    repositoryId: refusal.repositoryId,
    issueNumber: refusal.issueNumber,
    actor: refusal.actor,
    since: new Date(now.getTime() - REFUSAL_REPLY_WINDOW_MS),
    exceptCommentId: refusal.commentId,
  });
  return mayReplyToRefusal(sent);
}

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
