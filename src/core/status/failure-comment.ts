import { inertInline } from '../inert-markdown.js';
import { truncate } from './escape.js';

export interface FailureCommentInput {
  taskKey: string;
  attempts: number;
  /** Plain text, possibly quoting GitHub's or a reviewer's words: shown as written. */
  reason: string;
  /** The failed run's log, a URL GitHub gave us. */
  logUrl: string | null;
  /** Task ids now blocked behind this one. */
  blocked: readonly string[];
}

// A reason can carry a whole review's feedback; the comment only needs to say what happened.
const MAX_REASON = 2000;

/** The issue comment when a task fails for good: what failed, its log, how to `/retry`. */
export function renderFailureComment(input: FailureCommentInput): string {
  const { taskKey, attempts } = input;
  const reason = inertInline(truncate(input.reason.trim(), MAX_REASON).replace(/[.\s]+$/, ''));
  return [
    `**agent-coordinator**: task \`${taskKey}\` failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason}.`,
    input.logUrl ? `Log: ${input.logUrl}` : '',
    input.blocked.length > 0
      ? `Blocked until it succeeds: ${input.blocked.map((k) => `\`${k}\``).join(', ')}.`
      : '',
    `Comment \`/retry ${taskKey} [feedback]\` to run it again.`,
  ]
    .filter(Boolean)
    .join('\n\n');
}
