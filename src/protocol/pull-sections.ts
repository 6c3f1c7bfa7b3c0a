import { inertInline } from '../core/inert-markdown.js';
import type { WorkerMode } from './assignment.js';
import {
  agentConfigPathShown,
  MAX_AGENT_CONFIG_PATHS,
  neutralizeMarkers,
  withinAgentConfigChars,
  type Usage,
} from './markers.js';

/**
 * The parts of an agent PR's body the worker owns (docs/worker.md, "Pull request body"),
 * each between two hidden markers, so an attempt rewrites its sections and leaves whatever
 * people wrote around them alone. Text inside is neutralised (`<!--` cannot open a comment),
 * so no content can close a section or open another.
 */
export const PULL_SECTIONS = ['agent-config', 'partial', 'summary', 'history'] as const;
export type PullSection = (typeof PULL_SECTIONS)[number];

export function sectionStart(name: PullSection): string {
  return `<!-- agent-coordinator:section ${name} -->`;
}

export function sectionEnd(name: PullSection): string {
  return `<!-- agent-coordinator:end ${name} -->`;
}

/**
 * A section with `content`; blank lines around it keep the markers out of its markdown, and
 * `<!--` in the content is neutralised, so nothing inside can end the section early.
 */
export function renderSection(name: PullSection, content: string): string {
  const inner = neutralizeMarkers(content.trim());
  return inner
    ? `${sectionStart(name)}\n\n${inner}\n\n${sectionEnd(name)}`
    : `${sectionStart(name)}\n${sectionEnd(name)}`;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const sectionPattern = (name: PullSection) =>
  new RegExp(`${escape(sectionStart(name))}([\\s\\S]*?)${escape(sectionEnd(name))}`, 'g');

/** The content of the first `name` section of `body`, trimmed; undefined when there is none. */
export function readSection(
  body: string | null | undefined,
  name: PullSection,
): string | undefined {
  if (!body) return undefined;
  const match = sectionPattern(name).exec(body);
  return match ? match[1]!.trim() : undefined;
}

/**
 * `body` with its `name` section holding `content`: replaced where it stands (copies of it
 * further down dropped), or appended when the body has none (a PR an older worker opened).
 */
export function writeSection(body: string, name: PullSection, content: string): string {
  const rendered = renderSection(name, content);
  let seen = false;
  const replaced = body.replace(sectionPattern(name), () => {
    if (seen) return '';
    seen = true;
    return rendered;
  });
  return seen ? replaced : `${body.trimEnd()}\n\n${rendered}\n`;
}

/** The partial section: present (non-empty) while the task's latest work was cut short. */
export function isPartial(body: string | null | undefined): boolean {
  return Boolean(readSection(body, 'partial'));
}

/** One attempt's row in the history section. */
export interface AttemptRecord {
  attempt: number;
  mode: WorkerMode;
  /** `pushed`, or `timed_out` when the agent was stopped at the deadline and its work kept. */
  conclusion: 'pushed' | 'timed_out';
  /** This attempt's own spend (the usage marker keeps the total). */
  usage?: Usage;
  /** The workflow run's page, where its log is. */
  runUrl: string;
  /** What the attempt was asked to address, in a few words (untrusted: rendered inert). */
  feedback: string;
}

export const HISTORY_HEADING = '### Attempts';
const HEADER = [
  '| attempt | mode | conclusion | cost | tokens (in / out) | log | feedback |',
  '| ---: | --- | --- | ---: | ---: | --- | --- |',
];
const ROW = /^\| (\d{1,6}) \|/;

const MAX_FEEDBACK_CELL = 300;

export function historyRow(record: AttemptRecord): string {
  const u = record.usage;
  const cost = u ? `$${(Math.round(u.costUsd * 100) / 100).toFixed(2)}` : '—';
  const tokens = u ? `${Math.round(u.inputTokens)} / ${Math.round(u.outputTokens)}` : '—';
  const conclusion = record.conclusion === 'timed_out' ? 'timed out (partial)' : 'pushed';
  const feedback = record.feedback.trim()
    ? inertInline(record.feedback.trim().slice(0, MAX_FEEDBACK_CELL))
    : '—';
  return `| ${record.attempt} | ${record.mode} | ${conclusion} | ${cost} | ${tokens} | [run](${record.runUrl}) | ${feedback} |`;
}

/** The attempt numbers of a history section's rows, in order. */
export function historyAttempts(content: string | undefined): number[] {
  return (content ?? '')
    .split('\n')
    .map((line) => ROW.exec(line)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
}

/**
 * The history with `record`'s row: rows of other attempts kept as they were, a row of the
 * same attempt (a re-run job) replaced, in attempt order.
 */
export function historyWith(content: string | undefined, record: AttemptRecord): string {
  const rows = new Map<number, string>();
  for (const line of (content ?? '').split('\n')) {
    const n = ROW.exec(line)?.[1];
    if (n !== undefined) rows.set(Number(n), line);
  }
  rows.set(record.attempt, historyRow(record));
  const ordered = [...rows.entries()].sort(([a], [b]) => a - b).map(([, row]) => row);
  return [HISTORY_HEADING, '', ...HEADER, ...ordered].join('\n');
}

/** What GitHub and people call the agent configuration files, for the warnings. */
export const AGENT_CONFIG_FILES =
  '`.claude/`, `.mcp.json`, `CLAUDE.md`, `AGENTS.md`, and the `.gitattributes` and `.lfsconfig` that set what git runs for them and what reviewers see';

/**
 * The visible warning of the agent-config section: the PR changes files that configure coding
 * agents. Each path is rendered inert (the agent chose the file names). Empty when it changes
 * none, which leaves the section empty. The paths themselves travel in the agent-config marker
 * (markers.ts), which is what the coordinator reads.
 */
export function agentConfigContent(paths: readonly string[]): string {
  const listed = paths.filter((p) => p.trim() !== '');
  if (listed.length === 0) return '';
  // The agent names the files: the list is bounded like the marker.
  const shown = withinAgentConfigChars(
    listed
      .slice(0, MAX_AGENT_CONFIG_PATHS)
      .map((path) => `- ${inertInline(agentConfigPathShown(path))}`),
  );
  const more = listed.length - shown.length;
  return [
    `**Agent configuration changed.** This PR changes files that configure coding agents (${AGENT_CONFIG_FILES}). Every agent of this task starts from the base branch's copies, but once merged these configure every later agent run and every person's Claude Code in this repository: review them with care.`,
    '',
    ...shown,
    ...(more > 0 ? [`- … and ${more} more`] : []),
  ].join('\n');
}
