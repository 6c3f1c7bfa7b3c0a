import type { WorkerEnv } from './env.js';
import type { WorkerGitHub } from './github.js';
import { inertInline } from '../core/inert-markdown.js';
import {
  markerBlock,
  neutralizeMarkers,
  updateBodyMarkers,
  type Usage,
} from '../protocol/markers.js';

type PullEnv = Pick<WorkerEnv, 'issue' | 'taskId' | 'attempt' | 'title' | 'prompt' | 'branch'>;

const MAX_SUMMARY = 20_000;
const MAX_PROMPT = 30_000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n\n… (cut)`;
}

export function pullTitle(env: Pick<WorkerEnv, 'issue' | 'title' | 'taskId'>): string {
  const title = env.title.replace(/\s+/g, ' ').trim() || env.taskId;
  return `[#${env.issue}] ${title}`.slice(0, 256);
}

export function pullBody(env: PullEnv, summary: string, usage: Usage | undefined): string {
  // The title is untrusted text: in the PR body it must not link, mention or format.
  const parts = [`Task \`${env.taskId}\`: ${inertInline(env.title.trim() || env.taskId)}`];
  if (summary.trim()) parts.push(neutralizeMarkers(clip(summary.trim(), MAX_SUMMARY)));
  if (env.prompt.trim()) {
    parts.push(
      `<details><summary>Task prompt</summary>\n\n${neutralizeMarkers(clip(env.prompt.trim(), MAX_PROMPT))}\n\n</details>`,
    );
  }
  parts.push(`Part of #${env.issue}`);
  parts.push(markerBlock(env.issue, env.taskId, env.attempt, usage));
  return `${parts.join('\n\n')}\n`;
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
  input: { base: string; summary: string; usage: Usage | undefined },
): Promise<PullResult> {
  const existing = await github.findOpenPull(env.branch);
  if (existing) {
    const body = updateBodyMarkers(existing.body, {
      issue: env.issue,
      taskId: env.taskId,
      attempt: env.attempt,
      usage: input.usage,
    });
    await github.updatePullBody(existing.number, body);
    return { number: existing.number, url: existing.url, created: false };
  }
  const created = await github.createPull({
    branch: env.branch,
    base: input.base,
    title: pullTitle(env),
    body: pullBody(env, input.summary, input.usage),
  });
  return { number: created.number, url: created.url, created: true };
}
