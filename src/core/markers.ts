/** Hidden markers the coordinator and its workers leave in comments and PR bodies (SPEC §2, §5, §6). */

export interface Usage {
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
}

const USAGE =
  /<!-- agent-coordinator:usage cost_usd=(\d+(?:\.\d+)?) input_tokens=(\d+) output_tokens=(\d+) -->/g;
const PLAN = /<!-- agent-coordinator:plan run_id=(\d{1,19}) -->/;
const TASK =
  /<!-- agent-coordinator:task issue=(\d+) task=([a-z0-9][a-z0-9_-]{0,39}) attempt=(\d+) -->/;

/** The last usage marker of a PR body (the worker keeps the task's running total there). */
export function parseUsageMarker(body: string | null | undefined): Usage | undefined {
  if (!body) return undefined;
  let last: Usage | undefined;
  for (const match of body.matchAll(USAGE)) {
    last = {
      costUsd: Number(match[1]),
      inputTokens: Number(match[2]),
      outputTokens: Number(match[3]),
    };
  }
  return last && Number.isFinite(last.costUsd) ? last : undefined;
}

export function parsePlanMarker(body: string | null | undefined): number | undefined {
  const match = body ? PLAN.exec(body) : null;
  if (!match) return undefined;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) ? id : undefined;
}

export function parseTaskMarker(
  body: string | null | undefined,
): { issue: number; task: string; attempt: number } | undefined {
  const match = body ? TASK.exec(body) : null;
  return match
    ? { issue: Number(match[1]), task: match[2]!, attempt: Number(match[3]) }
    : undefined;
}
