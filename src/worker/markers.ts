import type { Usage } from './agent-output.js';

const TASK_MARKER = /<!--\s*agent-coordinator:task\b[^>]*-->/g;
const USAGE_MARKER = /<!--\s*agent-coordinator:usage\b([^>]*)-->/g;

export function taskMarker(issue: number, taskId: string, attempt: number): string {
  return `<!-- agent-coordinator:task issue=${issue} task=${taskId} attempt=${attempt} -->`;
}

// Six decimals: sub-cent precision, and no 0.30000000000000004 in a PR body.
const money = (n: number) => String(Math.round(n * 1e6) / 1e6);

export function usageMarker(u: Usage): string {
  return `<!-- agent-coordinator:usage cost_usd=${money(u.costUsd)} input_tokens=${Math.round(u.inputTokens)} output_tokens=${Math.round(u.outputTokens)} -->`;
}

/** The usage recorded in a PR body by earlier attempts (the last marker wins). */
export function readUsage(body: string): Usage | undefined {
  let found: Usage | undefined;
  for (const m of body.matchAll(USAGE_MARKER)) {
    const fields = Object.fromEntries(
      [...m[1]!.matchAll(/(\w+)=([0-9.]+)/g)].map((f) => [f[1]!, Number(f[2])]),
    );
    const val = (k: string) => (Number.isFinite(fields[k]) ? (fields[k] as number) : 0);
    found = {
      costUsd: val('cost_usd'),
      inputTokens: val('input_tokens'),
      outputTokens: val('output_tokens'),
    };
  }
  return found;
}

export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  return {
    costUsd: a.costUsd + b.costUsd,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
}

/**
 * Text we did not write (task titles, prompts, the agent's summary) must not be able to
 * forge a marker: the coordinator trusts them for attempts and spend.
 */
export function neutralizeMarkers(text: string): string {
  return text.replace(/<!--/g, '&lt;!--');
}

export interface MarkerState {
  issue: number;
  taskId: string;
  attempt: number;
  /** This attempt's usage; added to what the body already records. */
  usage?: Usage;
}

/** Replace our markers in a (possibly human-edited) PR body, keeping everything else. */
export function updateBodyMarkers(body: string, state: MarkerState): string {
  const total = addUsage(readUsage(body), state.usage);
  const rest = body.replace(TASK_MARKER, '').replace(USAGE_MARKER, '').trimEnd();
  return `${rest}\n\n${markerBlock(state.issue, state.taskId, state.attempt, total)}\n`;
}

export function markerBlock(issue: number, taskId: string, attempt: number, usage?: Usage): string {
  const lines = [taskMarker(issue, taskId, attempt)];
  if (usage) lines.push(usageMarker(usage));
  return lines.join('\n');
}
