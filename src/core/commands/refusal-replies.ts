/**
 * How many refusal replies (to people without write access: a refused command, label, close)
 * the coordinator wrote in the last REFUSAL_REPLY_WINDOW_MS, as the command log counts them.
 */
export interface RefusalRepliesSent {
  /** To this person on this issue. */
  toPersonOnIssue: number;
  /** To this person anywhere in the installation. */
  toPerson: number;
  /** To anyone in the installation. */
  inInstallation: number;
}

/** A person without write access gets at most one refusal reply per issue in this window. */
export const REFUSAL_REPLY_WINDOW_MS = 60 * 60_000;

/**
 * The budget of refusal replies in the window. One per person and issue alone would let anyone
 * who can comment (every account, on a public repository) have the coordinator write once for
 * each issue and PR they comment on, and spend the installation's 500 content writes an hour
 * that runs need (src/github/write-budget.ts). With these, all outsiders together get at most
 * `perInstallation` of them.
 */
export const REFUSAL_REPLY_LIMITS = {
  perPersonAndIssue: 1,
  perPerson: 3,
  perInstallation: 30,
} as const;

/** Whether a refusal is answered, or recorded only (docs/commands.md, "Answers"). */
export function mayReplyToRefusal(sent: RefusalRepliesSent): boolean {
  return (
    sent.toPersonOnIssue < REFUSAL_REPLY_LIMITS.perPersonAndIssue &&
    sent.toPerson < REFUSAL_REPLY_LIMITS.perPerson &&
    sent.inInstallation < REFUSAL_REPLY_LIMITS.perInstallation
  );
}
