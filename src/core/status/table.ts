import { escapeMarkdownCell, truncate } from './escape.js';
import type { StatusTaskView } from './types.js';

export const TABLE_HEADER = [
  '| Task | Title | Deps | State | Attempts | PR | Cost |',
  '|---|---|---|---|---|---|---|',
].join('\n');

const NONE = '–';
// Per-cell caps keep one hostile row from eating the comment's 65,000-character budget.
const MAX_TITLE = 100;
const MAX_ID = 40;
const MAX_DEPS_SHOWN = 10;
const MAX_WAITING = 200;

export function renderTaskRow(task: StatusTaskView): string {
  const cells = [
    escapeMarkdownCell(truncate(task.id, MAX_ID)),
    escapeMarkdownCell(truncate(task.title, MAX_TITLE)),
    formatDeps(task.deps),
    formatState(task),
    Number.isSafeInteger(task.attempts) ? String(task.attempts) : NONE,
    formatPr(task.prNumber),
    task.costUsd === undefined ? NONE : formatUsd(task.costUsd),
  ];
  return `| ${cells.join(' | ')} |`;
}

export function moreTasksRow(count: number): string {
  return `| … ${count} more task${count === 1 ? '' : 's'} | | | | | | |`;
}

function formatDeps(deps: readonly string[]): string {
  if (deps.length === 0) return NONE;
  const shown = deps.slice(0, MAX_DEPS_SHOWN).map((d) => escapeMarkdownCell(truncate(d, MAX_ID)));
  const rest = deps.length - shown.length;
  return rest > 0 ? `${shown.join(', ')}, +${rest} more` : shown.join(', ');
}

function formatState(task: StatusTaskView): string {
  if (!task.waiting) return task.state;
  return `${task.state}: ${escapeMarkdownCell(truncate(task.waiting, MAX_WAITING))}`;
}

// A bare `#12` is what GitHub links to the PR; anything else is not a PR number we trust.
function formatPr(prNumber: number | undefined): string {
  return prNumber !== undefined && Number.isSafeInteger(prNumber) && prNumber > 0
    ? `#${prNumber}`
    : NONE;
}

export function formatUsd(amount: number): string {
  return Number.isFinite(amount) ? `$${amount.toFixed(2)}` : NONE;
}
