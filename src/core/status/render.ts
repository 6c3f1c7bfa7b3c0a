import type { RunState, TaskState } from '../states.js';
import { COMMANDS_DETAILS } from './commands.js';
import { inertInline, neutraliseHtmlComments } from '../inert-markdown.js';
import { sanitizeMarkdownBlock, truncate } from './escape.js';
import { renderMermaidGraph } from './mermaid.js';
import { formatUsd, moreTasksRow, renderTaskRow, TABLE_HEADER } from './table.js';
import {
  STATUS_MARKER,
  type RenderOptions,
  type StatusTaskView,
  type StatusView,
} from './types.js';

export const DEFAULT_MAX_CHARS = 65_000;
// Shares of the budget so that errors and the graph can never starve the table entirely.
const ERRORS_SHARE = 0.25;
const GRAPH_SHARE = 0.4;
const MAX_NOTES = 20;
const MAX_NOTE_CHARS = 500;

const RUN_STATE_LINE: Readonly<Record<RunState, string>> = {
  planning: 'Planning: waiting for the planner to propose the tasks.',
  plan_invalid:
    'The plan is invalid, so nothing is dispatched. Fix it and comment `/plan` with a tasks block.',
  awaiting_approval: 'Waiting for `/approve` on this issue before anything is dispatched.',
  running: 'Running: ready tasks are dispatched and approved pull requests merged in order.',
  held: 'Held: nothing new is dispatched. Comment `/unhold` to resume.',
  done: 'Done: every task is merged.',
  failed: 'Failed: a task could not be completed. Use `/retry <task_id>` to try again.',
  cancelled: 'Cancelled: nothing new is dispatched; pull requests are left open.',
};

/**
 * The body of the one status comment per issue (docs/status-comment.md). Deterministic for a given view,
 * always under `maxChars`, and containing STATUS_MARKER exactly once whatever the task text.
 */
export function renderStatusComment(view: StatusView, options: RenderOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const head: string[] = [
    `### agent-coordinator: \`${view.runState}\``,
    '',
    RUN_STATE_LINE[view.runState],
    '',
    summaryLine(view),
  ];

  if (view.planErrors !== undefined && view.planErrors.trim() !== '') {
    head.push('', '#### Plan errors', '', planErrors(view.planErrors, maxChars));
  }
  const notes = (view.notes ?? []).slice(0, MAX_NOTES);
  notes.push(...agentConfigNotes(view).slice(0, MAX_NOTES));
  notes.push(...outsideFilesNotes(view).slice(0, MAX_NOTES));
  notes.push(...updateRefusedNotes(view).slice(0, MAX_NOTES));
  if (view.holdReason !== undefined && view.holdReason.trim() !== '') {
    // `/hold by @alice` must not mention alice again on every edit of this comment.
    notes.push(`Held: ${inertInline(truncate(view.holdReason, MAX_NOTE_CHARS))}`);
  }
  if (notes.length > 0) {
    head.push('', ...notes.map(noteLine));
  }

  if (view.tasks.length > 0) {
    const graph = renderMermaidGraph(view.tasks, Math.floor(maxChars * GRAPH_SHARE));
    head.push(
      '',
      graph.ok
        ? graph.markdown
        : `_The dependency graph is not shown: ${graph.why} (GitHub renders large graphs badly)._`,
    );
  }

  const tail = ['', COMMANDS_DETAILS, '', `<sub>Updated ${escapeInline(view.updatedAt)}</sub>`, ''];
  const fixed = [STATUS_MARKER, ...head, '', TABLE_HEADER, ...tail].join('\n').length;
  const table =
    view.tasks.length > 0 ? ['', TABLE_HEADER, ...tableRows(view, maxChars - fixed)] : [];

  // Our own text holds no `<!--`; this pass guarantees no untrusted text smuggled one in.
  const body = neutraliseHtmlComments([...head, ...table, ...tail].join('\n'));
  const out = `${STATUS_MARKER}\n${body}`;
  // Only reachable with an unrealistically small maxChars; the limit still holds.
  return out.length <= maxChars ? out : out.slice(0, maxChars);
}

// Notes are our markdown but may quote untrusted text: one line each, no HTML comments.
function noteLine(note: string): string {
  return `- ${neutraliseHtmlComments(truncate(note.replace(/\s+/g, ' ').trim(), MAX_NOTE_CHARS))}`;
}

const MAX_AGENT_CONFIG_SHOWN = 5;

/** " (#12)" after a task's id in a note: the PR number is ours, a safe integer or nothing. */
function prSuffix(task: Pick<StatusTaskView, 'prNumber'>): string {
  return task.prNumber !== undefined && Number.isSafeInteger(task.prNumber)
    ? ` (#${task.prNumber})`
    : '';
}

/**
 * One note per task whose PR changes agent configuration (docs/status-comment.md): merged, those
 * files configure every later agent and every person's Claude Code in the repository. The task
 * id and the paths are untrusted, so they are rendered inert; the PR number is ours.
 */
function agentConfigNotes(view: Pick<StatusView, 'tasks'>): string[] {
  return view.tasks.flatMap((task) => {
    const paths = (task.agentConfigChanged ?? []).filter((p) => p.trim() !== '');
    if (paths.length === 0) return [];
    const pr = prSuffix(task);
    const shown = paths.slice(0, MAX_AGENT_CONFIG_SHOWN).map((p) => inertInline(truncate(p, 60)));
    const more = paths.length - shown.length;
    return [
      `**${inertInline(truncate(task.id, 40))}${pr} changes agent configuration:** ${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}`,
    ];
  });
}

/**
 * One note per task whose PR changes files outside its `files:`: from then on its real files,
 * not its declaration, decide what waits on it. Task ids and paths are rendered inert.
 */
function outsideFilesNotes(view: Pick<StatusView, 'tasks'>): string[] {
  return view.tasks.flatMap((task) => {
    const paths = (task.outsideFiles ?? []).filter((p) => p.trim() !== '');
    const unchecked = task.outsideUnchecked ?? 0;
    if (paths.length === 0 && unchecked === 0) return [];
    const shown = paths.slice(0, MAX_AGENT_CONFIG_SHOWN).map((p) => inertInline(truncate(p, 60)));
    const more = paths.length - shown.length;
    const id = inertInline(truncate(task.id, 40));
    // Checking ran out of steps (core/status/model.ts): say how many files it did not reach.
    const rest = unchecked > 0 ? `; ${unchecked} of its files were too many to check` : '';
    if (paths.length === 0)
      return [
        `${id}: ${unchecked} of its changed files were too many to check against its \`files:\` (its changed files decide its overlaps)`,
      ];
    return [
      `${id} changed files outside its \`files:\`: ${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}${rest} (its changed files decide its overlaps)`,
    ];
  });
}

/**
 * One note per task whose PR GitHub would not let the App bring up to date (a merge the App may
 * not push, such as a workflow file's change): it waits for a person to merge its base into it.
 * The task id, base and GitHub's message are rendered inert; the PR number is ours.
 */
function updateRefusedNotes(view: Pick<StatusView, 'tasks'>): string[] {
  return view.tasks.flatMap((task) => {
    if (!task.updateRefused) return [];
    const pr = prSuffix(task);
    const base = inertInline(truncate(task.updateRefused.base, 100));
    const message = inertInline(truncate(task.updateRefused.message, 200));
    return [
      `**${inertInline(truncate(task.id, 40))}${pr} waits for a person:** GitHub would not let the App bring it up to date with ${base} (${message}); merge ${base} into its branch and push`,
    ];
  });
}

function summaryLine(view: StatusView): string {
  const counts = new Map<TaskState, number>();
  for (const task of view.tasks) counts.set(task.state, (counts.get(task.state) ?? 0) + 1);
  const parts = [...counts].map(([state, n]) => `${n} ${state}`);
  const tasks = `${view.tasks.length} task${view.tasks.length === 1 ? '' : 's'}`;
  const breakdown = parts.length > 0 ? `: ${parts.join(', ')}` : '';
  return `${tasks}${breakdown} · spend ${spend(view.spentUsd, view.budgetUsd)}`;
}

function spend(spent: number, budget: number): string {
  if (!Number.isFinite(budget) || budget <= 0) return `${formatUsd(spent)} (no budget)`;
  const reached = spent >= budget ? ' (budget reached)' : '';
  return `${formatUsd(spent)} / ${formatUsd(budget)}${reached}`;
}

function planErrors(markdown: string, maxChars: number): string {
  const cap = Math.floor(maxChars * ERRORS_SHARE);
  if (markdown.length <= cap) return sanitizeMarkdownBlock(markdown);
  const cut = markdown.slice(0, cap);
  const atLine = cut.lastIndexOf('\n');
  const kept = atLine > 0 ? cut.slice(0, atLine) : cut;
  return `${sanitizeMarkdownBlock(kept)}\n\n_… ${markdown.length - kept.length} more characters of errors not shown._`;
}

// Rows in plan order until the budget runs out, then one row saying how many are missing.
function tableRows(view: StatusView, budget: number): string[] {
  const rows: string[] = [];
  // Room for the "… N more tasks" row so adding it can never overflow.
  let left = budget - moreTasksRow(view.tasks.length).length - 1;
  for (const task of view.tasks) {
    const row = renderTaskRow(task);
    if (row.length + 1 > left) break;
    rows.push(row);
    left -= row.length + 1;
  }
  const missing = view.tasks.length - rows.length;
  if (missing > 0) rows.push(moreTasksRow(missing));
  return rows;
}

function escapeInline(text: string): string {
  return text.replace(/[^0-9A-Za-z:.+-]/g, '');
}
