import type { WorkerEnv } from './env.js';
import { isInvalidBase, type WorkerGitHub } from './github.js';
import { inertInline, inertLines } from '../core/inert-markdown.js';
import { titleLine } from './steps.js';
import { markerBlock, updateBodyMarkers, type Usage } from '../protocol/markers.js';
import {
  agentConfigContent,
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

/** The agent's summary and the task's prompt, in characters of the rendered markdown. */
const MAX_SUMMARY = 8_000;
const MAX_PROMPT = 30_000;

/**
 * Untrusted multi-line text as inert markdown lines (inertLines), each line kept a line by a
 * hard break, cut at a line once the rendered lines reach `max` characters: escaping may grow
 * the text (`<` is `&lt;`), and GitHub refuses a body over 65,536 characters.
 */
function inertBlock(text: string, max: number): string[] {
  const lines: string[] = [];
  let length = 0;
  for (const line of inertLines(text.trim())) {
    if (length + line.length + 3 > max) {
      lines.push('', '… (cut)');
      break;
    }
    lines.push(line);
    length += line.length + 3;
  }
  while (lines.at(-1) === '') lines.pop();
  return lines.map((line, i) =>
    line !== '' && i < lines.length - 1 && lines[i + 1] !== '' ? `${line}  ` : line,
  );
}

export function pullTitle(env: Pick<WorkerEnv, 'issue' | 'title' | 'taskId'>): string {
  const title = titleLine(env.title) || env.taskId;
  return `[#${env.issue}] ${title}`.slice(0, 256);
}

/**
 * The agent's final message, bounded and inert (docs/worker.md, "Pull request body"): the
 * agent read untrusted text, so what it writes must not mention, link or format. Each line
 * stays a line (a hard break), so its lists still read as lists.
 */
export function summaryContent(attempt: number, summary: string): string {
  const lines = inertBlock(summary, MAX_SUMMARY);
  if (lines.length === 0) return '';
  const quoted = lines.map((line) => (line === '' ? '>' : `> ${line}`));
  return [`**What the agent did** (attempt ${attempt}):`, '', ...quoted].join('\n');
}

/**
 * The task's prompt, folded away and inert like the summary (docs/worker.md, "Pull request
 * body"): it came from the issue or the planner, so a mention, a reference (`#12`,
 * `owner/repo#3`, `GH-4`), a link, HTML or a `</details>` in it is shown as text and does
 * nothing. Empty when there is no prompt.
 */
export function promptContent(prompt: string): string {
  const lines = inertBlock(prompt, MAX_PROMPT);
  if (lines.length === 0) return '';
  return ['<details><summary>Task prompt</summary>', '', ...lines, '', '</details>'].join('\n');
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
  /**
   * The agent configuration files (`.claude/…`, `.mcp.json`, `CLAUDE.md`, `AGENTS.md`) the PR
   * changes against its base, as the publish step found them: shown as a warning (the
   * agent-config section) and listed in the agent-config marker for the coordinator. Empty: the
   * warning and the marker go. Undefined: not looked at, the body keeps what it says.
   */
  agentConfigChanged?: string[];
}

export function pullBody(env: PullEnv, input: PullBodyInput): string {
  // The title is untrusted text: in the PR body it must not link, mention or format.
  const parts = [
    `Task \`${env.taskId}\`: ${inertInline(env.title.trim() || env.taskId)}`,
    renderSection('agent-config', agentConfigContent(input.agentConfigChanged ?? [])),
    renderSection('partial', input.partial ? partialContent(env) : ''),
    renderSection('summary', summaryContent(env.attempt, input.summary)),
  ];
  const prompt = promptContent(env.prompt);
  if (prompt) parts.push(prompt);
  parts.push(renderSection('history', historyWith(undefined, input.record)));
  parts.push(`Part of #${env.issue}`);
  parts.push(
    markerBlock(env.issue, env.taskId, env.attempt, input.usage, input.agentConfigChanged),
  );
  return `${parts.join('\n\n')}\n`;
}

/**
 * An existing PR's body with this attempt in it: only the worker's sections and markers are
 * rewritten; a summary is replaced only when this attempt's agent gave one, the agent-config
 * warning only when this attempt looked (an empty list leaves its section empty).
 */
export function updatedPullBody(env: PullEnv, body: string, input: PullBodyInput): string {
  let next = body;
  if (input.agentConfigChanged) {
    const warning = agentConfigContent(input.agentConfigChanged);
    // A body without the section (opened before it existed) gets one only to say something.
    if (warning || readSection(next, 'agent-config') !== undefined)
      next = writeSection(next, 'agent-config', warning);
  }
  next = writeSection(next, 'partial', input.partial ? partialContent(env) : '');
  if (input.summary.trim())
    next = writeSection(next, 'summary', summaryContent(env.attempt, input.summary));
  next = writeSection(next, 'history', historyWith(readSection(next, 'history'), input.record));
  return updateBodyMarkers(next, {
    issue: env.issue,
    taskId: env.taskId,
    attempt: env.attempt,
    usage: input.usage,
    agentConfig: input.agentConfigChanged,
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
  input: PullBodyInput & { base: string; fallbackBase?: string },
): Promise<PullResult> {
  // A first attempt's branch was just created from the base (docs/lifecycle.md step 5), so it
  // has no PR to look up: opening one is a single call, and GitHub's 422 says when a re-run of
  // this job (or a person) opened it already. A retry's branch usually has its PR.
  const existing = env.attempt > 1 ? await github.findOpenPull(env.branch) : undefined;
  if (existing) {
    await github.updatePullBody(existing.number, updatedPullBody(env, existing.body, input));
    return { number: existing.number, url: existing.url, created: false };
  }
  const open = (base: string) =>
    github.createPull({
      branch: env.branch,
      base,
      title: pullTitle(env),
      body: pullBody(env, input),
    });
  let pull: Awaited<ReturnType<typeof open>>;
  try {
    pull = await open(input.base);
  } catch (error) {
    // A stack parent's branch deleted since the publish job looked (its PR merged): the PR
    // targets the run's base, where GitHub would have retargeted it (docs/stacking.md).
    const { fallbackBase } = input;
    if (!fallbackBase || fallbackBase === input.base || !isInvalidBase(error)) throw error;
    pull = await open(fallbackBase);
  }
  if (!pull.created)
    await github.updatePullBody(pull.number, updatedPullBody(env, pull.body, input));
  return { number: pull.number, url: pull.url, created: pull.created };
}
