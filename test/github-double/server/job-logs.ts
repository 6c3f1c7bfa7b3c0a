import { randomToken } from '../ids.js';
import { failedStepIndex, type Job } from '../model.js';
import type { ApiResponse } from './http.js';

// GitHub's log download URLs stay valid for a minute ("Download job logs for a workflow run").
const URL_LIFETIME_MS = 60_000;

/**
 * A job's plain-text log behind the short-lived URL `GET .../actions/jobs/{job_id}/logs`
 * redirects to: no credentials, a signature in the query, as GitHub's blob storage serves it.
 */
export class JobLogs {
  private readonly grants = new Map<string, { job: Job; expiresAt: number }>();

  constructor(private readonly baseUrl: () => string) {}

  signedUrl(job: Job): string {
    const sig = randomToken('sig');
    this.grants.set(sig, { job, expiresAt: Date.now() + URL_LIFETIME_MS });
    return `${this.baseUrl()}/_logs/jobs/${job.id}?sig=${sig}`;
  }

  answer(method: string, url: URL): ApiResponse | null {
    const m = /^\/_logs\/jobs\/(\d+)$/.exec(url.pathname);
    if (!m || method !== 'GET') return null;
    const grant = this.grants.get(url.searchParams.get('sig') ?? '');
    if (!grant || grant.expiresAt < Date.now() || String(grant.job.id) !== m[1])
      return {
        status: 403,
        text: {
          contentType: 'application/xml',
          content: '<Error><Code>AuthenticationFailed</Code></Error>',
        },
      };
    return { status: 200, text: { contentType: 'text/plain', content: renderJobLog(grant.job) } };
  }
}

function stamp(at: string): string {
  return at.replace(/Z$/, '.0000000Z');
}

/**
 * The job's log as GitHub's download gives it: every line timestamped, each step opening with a
 * `##[group]Run <step>` … `##[endgroup]` header, and the step that failed the job ending with
 * the runner's `##[error]Process completed with exit code 1.`
 */
export function renderJobLog(job: Job): string {
  const at = stamp(job.startedAt);
  const failed = failedStepIndex(job);
  const out: string[] = [];
  for (const [i, step] of job.log.entries()) {
    out.push(`${at} ##[group]Run ${step.name}`, `${at} ##[endgroup]`);
    for (const line of step.lines) out.push(`${at} ${line}`);
    if (i === failed) out.push(`${at} ##[error]Process completed with exit code 1.`);
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}
