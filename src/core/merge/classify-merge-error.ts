import { MERGE_ERROR_RULES, type MergeErrorKind } from './merge-error-rules.js';

export interface MergeErrorClass {
  kind: MergeErrorKind;
  /** One line for logs and the status comment: our reading, then GitHub's own words. */
  reason: string;
}

// GitHub's messages can be long (ruleset violations list every rule): keep the line readable.
const MAX_QUOTED = 300;

/**
 * Sorts a refused merge or enqueue into what to do next (see MergeErrorKind). `status` is the
 * HTTP status; for GraphQL errors pass the HTTP status of the response (usually 200). Server
 * errors and 429 are transient whatever the body says; otherwise the message decides, and the
 * status only settles messages we do not recognise.
 */
export function classifyMergeError(status: number, message: string): MergeErrorClass {
  const quoted = condense(message);
  const said = quoted ? ` (GitHub: ${quoted})` : '';
  if (status >= 500) return { kind: 'retry_later', reason: `GitHub server error ${status}${said}` };
  if (status === 429) return { kind: 'retry_later', reason: `rate limited${said}` };
  for (const rule of MERGE_ERROR_RULES) {
    if (rule.pattern.test(message)) return { kind: rule.kind, reason: `${rule.reason}${said}` };
  }
  // 409 on the merge endpoint means only one thing: the sha guard.
  if (status === 409) return { kind: 'reread', reason: `the head moved since it was read${said}` };
  if (status === 403) return { kind: 'blocked', reason: `GitHub refused the app${said}` };
  return { kind: 'unknown', reason: `HTTP ${status}${said}` };
}

function condense(message: string): string {
  const line = message
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
  const points = Array.from(line);
  return points.length <= MAX_QUOTED ? line : `${points.slice(0, MAX_QUOTED - 1).join('')}…`;
}
