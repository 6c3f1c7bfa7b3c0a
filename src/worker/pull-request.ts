import type { WorkerEnv } from './env.js';
import type { WorkerGitHub } from './github.js';
import { inertInline, inertLines } from '../core/inert-markdown.js';
import {
  markerBlock,
  neutralizeMarkers,
  updateBodyMarkers,
  type Usage,
} from '../protocol/markers.js';
import {
  historyWith,
  readSection,
  renderSection,
  writeSection,
  type AttemptRecord,
} from '../protocol/pull-sections.js';

type PullEnv = Pick<
  WorkerEnv,
  'issue' | 'taskId' | 'attempt' | 'title' | 'prompt' | 'branch' | 'timeoutMinutes'
>;

/** The agent's summary as it reached us; rendered inert it may grow a little. */
const MAX_SUMMARY = 8_000;
const MAX_PROMPT = 30_000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n\n… (cut)`;
}

export function pullTitle(env: Pick<WorkerEnv, 'issue' | 'title' | 'taskId'>): string {
  const title = env.title.replace(/\s+/g, ' ').trim() || env.taskId;
  return `[#${env.issue}] ${title}`.slice(0, 256);
}

/**
 * The agent's final message, bounded and inert (docs/worker.md, "Pull request body"): the
 * agent read untrusted text, so what it writes must not mention, link or format. Each line
 * stays a line (a hard break), so its lists still read as lists.
 */
export function summaryContent(attempt: number, summary: string): string {
  const lines = inertLines(clip(summary.trim(), MAX_SUMMARY));
  if (lines.length === 0) return '';
  const quoted = lines.map((line, i) =>
    line === '' ? '>' : `> ${line}${i < lines.length - 1 && lines[i + 1] !== '' ? '  ' : ''}`,
  );
  return [`**What the agent did** (attempt ${attempt}):`, '', ...quoted].join('\n');
}

/** The visible line of a partial PR; its section's markers are the hidden part. */
export function partialContent(env: Pick<WorkerEnv, 'attempt' | 'timeoutMinutes'>): string {
  return `**Partial work.** Attempt ${env.attempt} reached its ${env.timeoutMinutes}-minute time limit: what the agent had done is pushed, and the next attempt continues from it.`;
}

export interface PullBodyInput {
  /** The agent's final message this attempt; empty when the agent did not run or said nothing. */
  summary: string;
  /** This attempt's spend; added to the running total of the usage marker. */
  usage: Usage | undefined;
  /** True when the agent was stopped at its deadline. */
  partial: boolean;
  /** This attempt's row of the history. */
  record: AttemptRecord;
  /** Agent configuration the PR changes against its base. */
  agentConfigChanged?: string[];
}

export function pullBody(env: PullEnv, input: PullBodyInput): string {
  // The title is untrusted text: in the PR body it must not link, mention or format.
  const parts = [
    `Task \`${env.taskId}\`: ${inertInline(env.title.trim() || env.taskId)}`,
    renderSection('partial', input.partial ? partialContent(env) : ''),
    renderSection('summary', summaryContent(env.attempt, input.summary)),
  ];
  if (env.prompt.trim()) {
    parts.push(
      `<details><summary>Task prompt</summary>\n\n${neutralizeMarkers(clip(env.prompt.trim(), MAX_PROMPT))}\n\n</details>`,
    );
  }
  parts.push(renderSection('history', historyWith(undefined, input.record)));
  parts.push(`Part of #${env.issue}`);
  parts.push(markerBlock(env.issue, env.taskId, env.attempt, input.usage));
  return `${parts.join('\n\n')}\n`;
}

/**
 * An existing PR's body with this attempt in it: only the worker's sections and markers are
 * rewritten; a summary is replaced only when this attempt's agent gave one.
 */
export function updatedPullBody(env: PullEnv, body: string, input: PullBodyInput): string {
  let next = writeSection(body, 'partial', input.partial ? partialContent(env) : '');
  if (input.summary.trim())
    next = writeSection(next, 'summary', summaryContent(env.attempt, input.summary));
  next = writeSection(next, 'history', historyWith(readSection(next, 'history'), input.record));
  return updateBodyMarkers(next, {
    issue: env.issue,
    taskId: env.taskId,
    attempt: env.attempt,
    usage: input.usage,
  });
}

export interface PullResult {
  number: number;
  url: string;
  created: boolean;
}

/** One PR per task branch for the task's whole life: retries and fixes update it. */
export async function openOrUpdatePull(
  github: WorkerGitHub,
  env: PullEnv,
  input: PullBodyInput & { base: string },
): Promise<PullResult> {
  const existing = await github.findOpenPull(env.branch);
  if (existing) {
    await github.updatePullBody(existing.number, updatedPullBody(env, existing.body, input));
    return { number: existing.number, url: existing.url, created: false };
  }
  const created = await github.createPull({
    branch: env.branch,
    base: input.base,
    title: pullTitle(env),
    body: pullBody(env, input),
  });
  return { number: created.number, url: created.url, created: true };
}
