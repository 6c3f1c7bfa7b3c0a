import type { ProbotOctokit } from 'probot';
import { LOG_LINE_CHARS, statusOf, type JobLogTail, type RepoCoords } from './port.js';

type Octokit = InstanceType<typeof ProbotOctokit>;

// Logs can run to many megabytes: read as a stream, keep a window of lines, stop after this much.
const MAX_LOG_BYTES = 64 * 1024 * 1024;
const MAX_TAIL_LINES = 500;
const FETCH_TIMEOUT_MS = 30_000;

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z /;
const STEP = /^##\[group\]Run (.*)$/;
const ERROR = /^##\[error\]/;

/** Keeps the last lines of the step that failed first (or of the log), as they stream by. */
class TailWindow {
  private lines: string[] = [];
  private dropped = 0;
  private step: string | null = null;
  private done = false;

  constructor(private readonly max: number) {}

  add(raw: string): void {
    if (this.done) return;
    const line = raw.replace(/\r$/, '').replace(TIMESTAMP, '');
    const step = STEP.exec(line);
    if (step) {
      // A new step: what came before belongs to a step that did not fail.
      this.step = step[1] ?? null;
      this.dropped += this.lines.length;
      this.lines = [];
      return;
    }
    if (line === '##[endgroup]') return;
    this.lines.push(line.length > LOG_LINE_CHARS ? `${line.slice(0, LOG_LINE_CHARS)}…` : line);
    if (this.lines.length > this.max) {
      this.lines.shift();
      this.dropped += 1;
    }
    // GitHub Actions marks the failing command's end; later steps are cleanup.
    if (ERROR.test(line)) this.done = true;
  }

  result(): JobLogTail {
    return { lines: this.lines, step: this.step, linesLeftOut: this.dropped };
  }
}

/** See GitHubPort.jobLogTail. */
export async function readJobLogTail(
  octokit: Octokit,
  repo: RepoCoords,
  jobId: number,
  maxLines: number,
): Promise<JobLogTail | null> {
  let location: string | undefined;
  try {
    // GitHub answers 302 with a short-lived signed URL; it is fetched without our token.
    const answer = await octokit.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
      ...repo,
      job_id: jobId,
      request: { redirect: 'manual' },
    });
    location = answer.headers.location;
  } catch (error) {
    // 404: no such job, or its log is not there (yet, or any more); 410: logs expired.
    if (statusOf(error) === 404 || statusOf(error) === 410) return null;
    throw error;
  }
  if (!location) throw new Error(`job ${jobId} logs: GitHub answered without a log URL`);
  const response = await fetch(location, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (response.status === 404 || response.status === 410) return null;
  if (!response.ok || !response.body)
    throw new Error(`job ${jobId} logs: the log URL answered ${response.status}`);
  const window = new TailWindow(Math.min(Math.max(Math.floor(maxLines), 1), MAX_TAIL_LINES));
  const decoder = new TextDecoder();
  let pending = '';
  let read = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      read += value.byteLength;
      pending += decoder.decode(value, { stream: true });
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) window.add(line);
      if (read > MAX_LOG_BYTES) break;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  pending += decoder.decode();
  if (pending !== '' && read <= MAX_LOG_BYTES) window.add(pending);
  return window.result();
}
