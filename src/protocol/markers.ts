import { classifyLines, splitLines } from '../core/commands/markdown-lines.js';
import { ATTEMPT_SOURCE, ISSUE_NUMBER_SOURCE, TASK_KEY_SOURCE } from './identifiers.js';

/**
 * The hidden markers the worker writes and the coordinator reads: the task, usage and
 * agent-config markers of a PR body (docs/worker.md, "Pull request markers") and the planner's
 * plan marker (docs/lifecycle.md, step 2). Writer and reader live here together, so the two
 * sides cannot drift apart.
 */

/** What an agent spent, as the usage marker records it (input tokens include cache reads and writes). */
export interface Usage {
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
}

export function taskMarker(issue: number, taskId: string, attempt: number): string {
  return `<!-- agent-coordinator:task issue=${issue} task=${taskId} attempt=${attempt} -->`;
}

const TASK = new RegExp(
  `<!-- agent-coordinator:task issue=(${ISSUE_NUMBER_SOURCE}) task=(${TASK_KEY_SOURCE}) attempt=(${ATTEMPT_SOURCE}) -->`,
);

export function parseTaskMarker(
  body: string | null | undefined,
): { issue: number; task: string; attempt: number } | undefined {
  const match = body ? TASK.exec(body) : null;
  return match
    ? { issue: Number(match[1]), task: match[2]!, attempt: Number(match[3]) }
    : undefined;
}

/**
 * The most one attempt's usage may record: a cost far past any budget that the store's
 * `numeric(12,4)` still holds, and the integers a double holds exactly. The agent reports its own
 * usage and a report above what the worker measured counts, so it can name any figure: from
 * 1e21 on, JavaScript prints a number as `1e+21`, which no reader of the figures would take, and
 * the attempt would be charged nothing (docs/worker.md, "What the agent spent"). A figure past
 * its ceiling counts as the ceiling, which holds any run.
 */
export const USAGE_CEILING = { costUsd: 1_000_000, tokens: Number.MAX_SAFE_INTEGER } as const;

const bounded = (n: number, ceiling: number) => (n > 0 ? Math.min(n, ceiling) : 0);

/** `u` within USAGE_CEILING, tokens whole: what the figures can spell and the store hold. */
export function boundedUsage(u: Usage): Usage {
  return {
    costUsd: bounded(u.costUsd, USAGE_CEILING.costUsd),
    inputTokens: Math.round(bounded(u.inputTokens, USAGE_CEILING.tokens)),
    outputTokens: Math.round(bounded(u.outputTokens, USAGE_CEILING.tokens)),
  };
}

// Six decimals: sub-cent precision, and no 0.30000000000000004 in a PR body.
const money = (n: number) => String(Math.round(n * 1e6) / 1e6);

/** Usage as the marker, the log and the usage annotation spell it: digits, never an exponent. */
export function usageFigures(u: Usage): string {
  const { costUsd, inputTokens, outputTokens } = boundedUsage(u);
  return `cost_usd=${money(costUsd)} input_tokens=${inputTokens} output_tokens=${outputTokens}`;
}

/** `usageFigures` as a pattern: its three groups are read by `usageFromFigures`. */
export const USAGE_FIGURES_SOURCE = String.raw`cost_usd=(\d+(?:\.\d+)?) input_tokens=(\d+) output_tokens=(\d+)`;

/** The figures `match` read, within USAGE_CEILING (a person may write any into a PR body). */
export function usageFromFigures(match: RegExpMatchArray): Usage | undefined {
  const usage = {
    costUsd: Number(match[1]),
    inputTokens: Number(match[2]),
    outputTokens: Number(match[3]),
  };
  return Object.values(usage).every(Number.isFinite) ? boundedUsage(usage) : undefined;
}

export function usageMarker(u: Usage): string {
  return `<!-- agent-coordinator:usage ${usageFigures(u)} -->`;
}

const USAGE = new RegExp(`<!-- agent-coordinator:usage ${USAGE_FIGURES_SOURCE} -->`, 'g');

/**
 * The last usage marker of a PR body: the worker keeps the task's running total there, adding
 * each attempt to what it reads, and the coordinator records that total as the task's spend.
 */
export function parseUsageMarker(body: string | null | undefined): Usage | undefined {
  if (!body) return undefined;
  let last: RegExpMatchArray | undefined;
  for (const match of body.matchAll(USAGE)) last = match;
  return last && usageFromFigures(last);
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

/** The larger of each figure, where two say what one attempt spent. */
export function largerUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  return {
    costUsd: Math.max(a.costUsd, b.costUsd),
    inputTokens: Math.max(a.inputTokens, b.inputTokens),
    outputTokens: Math.max(a.outputTokens, b.outputTokens),
  };
}

/** At most this many agent configuration paths are listed (in the marker and in the section). */
export const MAX_AGENT_CONFIG_PATHS = 50;

/**
 * Characters the marker's encoded paths, and the section's rendered list, may take. The agent
 * names those files (a path may be 4,096 characters, which encoding or escaping makes up to
 * four times longer), and the body is written after the push: a body over GitHub's 65,536
 * characters is refused, which would leave the pushed change unflagged.
 */
const MAX_AGENT_CONFIG_CHARS = 4_000;

/** A path as the marker and the section list it: its first 200 code points (a note shows 60). */
export function agentConfigPathShown(path: string): string {
  const points = Array.from(path);
  return points.length <= 200 ? path : `${points.slice(0, 200).join('')}…`;
}

/**
 * The first item, then each later one that still fits MAX_AGENT_CONFIG_CHARS (with a separator
 * after each): how both the marker and the PR body's list bound what the agent named.
 */
export function withinAgentConfigChars(items: readonly string[]): string[] {
  const kept: string[] = [];
  let length = 0;
  for (const item of items) {
    if (kept.length > 0 && length + item.length + 1 > MAX_AGENT_CONFIG_CHARS) continue;
    kept.push(item);
    length += item.length + 1;
  }
  return kept;
}

/**
 * The agent configuration files (`.claude/…`, `.mcp.json`, `CLAUDE.md`, `AGENTS.md`) the PR
 * changes against its base, as the publish job found them (docs/worker.md, "Agent
 * configuration"): `<!-- agent-coordinator:agent-config paths=<p>,<p>,… -->`, each path
 * percent-encoded (encodeURIComponent), so no path can hold `,`, a space or `-->`. None: no marker.
 * The first path is always listed, then each that still fits MAX_AGENT_CONFIG_CHARS.
 */
export function agentConfigMarker(paths: readonly string[]): string | undefined {
  const encoded = withinAgentConfigChars(
    paths
      .slice(0, MAX_AGENT_CONFIG_PATHS)
      .filter((p) => p !== '')
      .map((p) => encodeURIComponent(agentConfigPathShown(p))),
  );
  if (encoded.length === 0) return undefined;
  return `<!-- agent-coordinator:agent-config paths=${encoded.join(',')} -->`;
}

const AGENT_CONFIG =
  /<!-- agent-coordinator:agent-config paths=([\w.!~*'()%-]+(?:,[\w.!~*'()%-]+)*) -->/g;

/**
 * The paths of the last agent-config marker of a PR body; empty when it has none (the PR
 * changes no agent configuration, or a worker from before the marker wrote it). A path that
 * does not decode is left out.
 */
export function parseAgentConfigMarker(body: string | null | undefined): string[] {
  let last: string | undefined;
  for (const match of body?.matchAll(AGENT_CONFIG) ?? []) last = match[1];
  if (last === undefined) return [];
  const paths: string[] = [];
  for (const encoded of last.split(',').slice(0, MAX_AGENT_CONFIG_PATHS)) {
    try {
      paths.push(decodeURIComponent(encoded));
    } catch {
      // Not something agentConfigMarker wrote: a person's edit.
    }
  }
  return paths;
}

export function markerBlock(
  issue: number,
  taskId: string,
  attempt: number,
  usage?: Usage,
  agentConfig: readonly string[] = [],
): string {
  const lines = [taskMarker(issue, taskId, attempt)];
  if (usage) lines.push(usageMarker(usage));
  const config = agentConfigMarker(agentConfig);
  if (config) lines.push(config);
  return lines.join('\n');
}

// Anything that looks like one of our PR markers, well-formed or not, is replaced on an update.
const ANY_TASK_MARKER = /<!--\s*agent-coordinator:task\b[^>]*-->/g;
const ANY_USAGE_MARKER = /<!--\s*agent-coordinator:usage\b[^>]*-->/g;
const ANY_AGENT_CONFIG_MARKER = /<!--\s*agent-coordinator:agent-config\b[^>]*-->/g;

export interface MarkerState {
  issue: number;
  taskId: string;
  attempt: number;
  /** This attempt's usage; added to what the body already records. */
  usage?: Usage;
  /** The agent configuration paths the PR now changes; undefined keeps what the body says. */
  agentConfig?: readonly string[];
}

/** Replace our markers in a (possibly human-edited) PR body, keeping everything else. */
export function updateBodyMarkers(body: string, state: MarkerState): string {
  const total = addUsage(parseUsageMarker(body), state.usage);
  const agentConfig = state.agentConfig ?? parseAgentConfigMarker(body);
  const rest = body
    .replace(ANY_TASK_MARKER, '')
    .replace(ANY_USAGE_MARKER, '')
    .replace(ANY_AGENT_CONFIG_MARKER, '')
    .trimEnd();
  return `${rest}\n\n${markerBlock(state.issue, state.taskId, state.attempt, total, agentConfig)}\n`;
}

/**
 * Text we did not write (task titles, prompts, the agent's summary) must not be able to
 * forge a marker: the coordinator trusts them for attempts and spend.
 */
export function neutralizeMarkers(text: string): string {
  return text.replace(/<!--/g, '&lt;!--');
}

/** The plan marker, on a line of its own in the planner's comment: the workflow run that wrote it. */
export function planMarker(runId: number | string): string {
  return `<!-- agent-coordinator:plan run_id=${runId} -->`;
}

// On a line of its own, as an HTML block may be indented: up to three spaces.
const PLAN_LINE = /^ {0,3}<!-- agent-coordinator:plan run_id=(\d{1,19}) -->[ \t]*$/;

/**
 * The one match of `pattern` on a line of its own anywhere outside code blocks, quotes and HTML
 * comments: a marker quoted in a plan, in a quote or inline in a sentence (as a reply echoing one
 * would have it) is not one. Matches that differ are no answer at all; the same one again is it.
 */
function ownLineMarker(body: string | null | undefined, pattern: RegExp) {
  if (!body) return undefined;
  const lines = splitLines(body);
  const kinds = classifyLines(lines);
  const found = new Map<string, RegExpExecArray>();
  lines.forEach((line, i) => {
    const match = kinds[i] === 'html_comment' ? pattern.exec(line) : null;
    if (match) found.set(match.slice(1).join(' '), match);
  });
  return found.size === 1 ? [...found.values()][0] : undefined;
}

/** The planner's workflow run id, from its marker (as `ownLineMarker` reads one). */
export function parsePlanMarker(body: string | null | undefined): number | undefined {
  const match = ownLineMarker(body, PLAN_LINE);
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) ? id : undefined;
}

// The usage marker on a line of its own, as the plan marker is.
const USAGE_LINE = new RegExp(
  String.raw`^ {0,3}<!-- agent-coordinator:usage ${USAGE_FIGURES_SOURCE} -->[ \t]*$`,
);

/**
 * What the planner spent, from the usage marker the publish job writes under the plan marker
 * (docs/worker.md, "What the agent spent"), read as the plan marker is (`ownLineMarker`), so one
 * the planner wrote into its tasks block is none.
 */
export function parsePlanUsage(body: string | null | undefined): Usage | undefined {
  const match = ownLineMarker(body, USAGE_LINE);
  return match && usageFromFigures(match);
}

/**
 * The hidden marker of the worker's reply in a review thread (docs/worker.md, "Answering the
 * review"): one per thread and attempt, so a re-run job finds its reply and does not post it
 * again, while a later attempt given the same thread answers it anew.
 */
export function replyMarker(taskId: string, attempt: number, commentId: number): string {
  return `<!-- agent-coordinator:reply task=${taskId} attempt=${attempt} comment=${commentId} -->`;
}

const REPLY = new RegExp(
  `<!-- agent-coordinator:reply task=(${TASK_KEY_SOURCE}) attempt=(${ATTEMPT_SOURCE}) comment=(\\d{1,19}) -->`,
);

export function parseReplyMarker(
  body: string | null | undefined,
): { task: string; attempt: number; commentId: number } | undefined {
  const match = body ? REPLY.exec(body) : null;
  return match
    ? { task: match[1]!, attempt: Number(match[2]), commentId: Number(match[3]) }
    : undefined;
}
