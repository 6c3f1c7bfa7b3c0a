/** Hidden markers the coordinator and its workers leave in comments and PR bodies (docs/lifecycle.md, docs/status-comment.md, docs/worker.md). */
import { classifyLines, splitLines } from './commands/markdown-lines.js';

export interface Usage {
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
}

const USAGE =
  /<!-- agent-coordinator:usage cost_usd=(\d+(?:\.\d+)?) input_tokens=(\d+) output_tokens=(\d+) -->/g;
// On a line of its own, as an HTML block may be indented: up to three spaces.
const PLAN_LINE = /^ {0,3}<!-- agent-coordinator:plan run_id=(\d{1,19}) -->[ \t]*$/;
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

/**
 * The planner's workflow run id, from its marker on a line of its own anywhere outside code
 * blocks, quotes and HTML comments: a marker quoted in the plan, in a quote or inline in a
 * sentence (as a reply echoing one would have it) is not one. Two different run ids are
 * no answer at all.
 */
export function parsePlanMarker(body: string | null | undefined): number | undefined {
  if (!body) return undefined;
  const lines = splitLines(body);
  const kinds = classifyLines(lines);
  const ids = new Set<string>();
  lines.forEach((line, i) => {
    const match = kinds[i] === 'html_comment' ? PLAN_LINE.exec(line) : null;
    if (match) ids.add(match[1]!);
  });
  if (ids.size !== 1) return undefined;
  const id = Number([...ids][0]);
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
