import { createHash } from 'node:crypto';
import type { Store } from '../store/index.js';

/**
 * A person without write access gets at most one refusal reply per issue in this window;
 * later refusals are recorded but not answered, so nobody can spend the installation's write
 * budget (GitHub's secondary limit is about 80 content writes a minute) by posting commands.
 */
export const REFUSAL_REPLY_WINDOW_MS = 60 * 60_000;

export function mayAnswerRefusal(
  store: Store,
  refusal: { repositoryId: number; issueNumber: number; actor: string; commentId: number },
  now: Date,
): Promise<boolean> {
  return store.commands
    .refusalAnsweredSince({
      repositoryId: refusal.repositoryId,
      issueNumber: refusal.issueNumber,
      actor: refusal.actor,
      since: new Date(now.getTime() - REFUSAL_REPLY_WINDOW_MS),
      exceptCommentId: refusal.commentId,
    })
    .then((answered) => !answered);
}

/**
 * The command log is keyed by comment; a refused label has none, so it is recorded under a
 * stand-in derived from its delivery id (a redelivery keeps the id, so it is recorded once).
 * Negative, where GitHub's comment ids are positive.
 */
export function labelRefusalKey(deliveryId: string): number {
  const digest = createHash('sha256').update(deliveryId).digest();
  return -(digest.readUIntBE(0, 6) + 1);
}
