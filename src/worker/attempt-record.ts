import type { Usage } from '../protocol/markers.js';
import type { AttemptRecord } from '../protocol/pull-sections.js';
import type { WorkerEnv } from './env.js';

type RecordEnv = Pick<
  WorkerEnv,
  'attempt' | 'mode' | 'serverUrl' | 'owner' | 'repo' | 'runId' | 'feedback' | 'review' | 'checks'
>;

/** The Actions run's page (GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID). */
export function runUrl(env: Pick<WorkerEnv, 'serverUrl' | 'owner' | 'repo' | 'runId'>): string {
  return `${env.serverUrl}/${env.owner}/${env.repo}/actions/runs/${env.runId}`;
}

const MAX_TEXT_FEEDBACK = 120;

/**
 * What the attempt was asked to address, in a few words for its history row: the review and
 * its threads, the failing checks by name, the conflicts, else the start of the text feedback.
 */
export function feedbackSummary(env: RecordEnv, conflicts: readonly string[] = []): string {
  const parts: string[] = [];
  if (env.review) {
    const { reviewer, threads, omittedThreads, unreadThreads } = env.review;
    const n = threads.length + omittedThreads;
    // Threads not read are said where the people who asked see it: the PR's history of attempts.
    const unread = unreadThreads ? ` (${unreadThreads} not read)` : '';
    parts.push(
      `changes requested by ${reviewer} (${n} thread${n === 1 ? '' : 's'}${omittedThreads > 0 ? `, ${omittedThreads} left out${unread}` : ''})`,
    );
  }
  if (env.checks.length > 0) parts.push(`failing: ${env.checks.map((c) => c.name).join(', ')}`);
  if (conflicts.length > 0)
    parts.push(`conflicts in ${conflicts.length} file${conflicts.length === 1 ? '' : 's'}`);
  const text = env.feedback.replace(/\s+/g, ' ').trim();
  if (parts.length === 0 && text) {
    parts.push(
      `"${text.length > MAX_TEXT_FEEDBACK ? `${text.slice(0, MAX_TEXT_FEEDBACK)}…` : text}"`,
    );
  }
  return parts.join('; ');
}

export function attemptRecord(
  env: RecordEnv,
  input: { stopped: boolean; usage: Usage | undefined; conflicts?: readonly string[] },
): AttemptRecord {
  return {
    attempt: env.attempt,
    mode: env.mode,
    conclusion: input.stopped ? 'timed_out' : 'pushed',
    usage: input.usage,
    runUrl: runUrl(env),
    feedback: feedbackSummary(env, input.conflicts),
  };
}
