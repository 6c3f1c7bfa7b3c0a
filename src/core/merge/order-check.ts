import { formatWaitReason } from '../scheduler/index.js';
import { inertInline, inertLines } from '../inert-markdown.js';
import {
  CHECK_SUMMARY_MAX_BYTES,
  CHECK_TITLE_MAX,
  capBytes,
  capChars,
  plainText,
} from './check-text.js';
import { approvalOf, shortSha } from './approval.js';
import { unmergedDeps } from './dependency-order.js';
import { stackedOnText } from '../stack/index.js';
import { awaitsNoMerge } from '../lifecycle/facts.js';
import type { MergePull, MergeTask } from './types.js';

export const ORDER_CHECK_NAME = 'agent-coordinator/order';

/** The coordinator's own order check: no merge or stack waits on its result. */
export function isOrderCheck(check: { name?: string }): boolean {
  return check.name === ORDER_CHECK_NAME;
}

/** What the order check needs from the run: `MergeSnapshot` fits. */
export interface OrderCheckInput {
  tasks: readonly MergeTask[];
  pulls?: readonly Pick<MergePull, 'taskId' | 'number'>[];
  /** merge.requireApproval: the check then also waits for the head's approval. */
  requireApproval: boolean;
  /** The run is held (`/hold` on the issue, a budget): nothing of it merges. */
  runHeld?: boolean;
}

export interface OrderCheck {
  status: 'in_progress' | 'completed';
  conclusion?: 'success' | 'failure';
  /** Plain text (GitHub does not render it as markdown), at most 1000 characters. */
  title: string;
  /** Markdown, at most 65535 bytes. */
  summary: string;
  /**
   * Nothing a head without an order check needs written: branch protection holds a head whose
   * required check is missing as it holds one in progress, and the task is not awaiting its merge
   * (its worker still reporting as its PR opens). A check already on the head is rewritten.
   */
  notIfAbsent?: true;
}

// Enough to read; the rest of a long veto stays in the comment it came from.
const MAX_REASON = 4000;
const MAX_CELL = 200;

/**
 * The `agent-coordinator/order` check run on the head `headSha` of a task's PR
 * (docs/lifecycle.md): in progress while a dep is unmerged or, with merge.requireApproval, while
 * that head is not the approved one, and while the task does not await its merge; success once
 * all hold; failure while the task is vetoed.
 * Branch protection can require it (from this App), so GitHub itself then refuses to merge an
 * agent PR out of order or unapproved: whoever asks, a person or the agent's own code holding a
 * workflow token.
 */
export function orderCheck(task: MergeTask, headSha: string, run: OrderCheckInput): OrderCheck {
  const byId = new Map(run.tasks.map((t) => [t.taskId, t] as const));
  const openPr = new Map<string, number>();
  for (const pull of run.pulls ?? []) {
    const own = openPr.get(pull.taskId);
    if (own === undefined || pull.number < own) openPr.set(pull.taskId, pull.number);
  }
  const deps = [...new Set(task.deps)];
  const unmerged = unmergedDeps(deps, byId, openPr);
  const table = depsTable(deps, byId, openPr);

  if (task.state === 'vetoed' || task.vetoReason !== undefined) {
    const reason = capChars(task.vetoReason?.trim() ?? '', MAX_REASON);
    return result('completed', 'failure', reason ? `vetoed: ${reason}` : 'vetoed', [
      `Vetoed: \`${task.taskId}\` will not be merged. \`/retry\` with feedback revives it.`,
      reason ? quote(reason) : '',
      table,
    ]);
  }
  if (unmerged.length > 0) {
    const stacked = stackedOnOne(task, unmerged);
    return result(
      'in_progress',
      undefined,
      stacked ?? formatWaitReason({ kind: 'deps', unmerged }),
      [
        stacked
          ? `\`${task.taskId}\` is stacked on its one unmerged dependency's PR: it merges only after that one has merged.`
          : '',
        `\`${task.taskId}\` merges only after every dependency has merged; the coordinator then merges it in order.`,
        table,
      ],
    );
  }
  if (run.requireApproval) {
    const approval = approvalOf(task, { headSha });
    if (approval.kind !== 'approved') {
      const head = shortSha(headSha);
      return result('in_progress', undefined, `waiting for /approve of ${head}`, [
        approval.kind === 'stale'
          ? `\`${task.taskId}\` was approved at ${shortSha(approval.approvedSha)}, but the head is now ${head}: new work needs approval again.`
          : `\`${task.taskId}\` is not approved.`,
        `\`/approve\` on the PR, or an approving review of ${head} by a person with write access, lets it merge; the coordinator then merges it in order.`,
        table,
      ]);
    }
  }
  // What the coordinator would not merge, the check does not pass: a task being reworked, or a
  // stacked child cancelled with its parent, whose head on the base now shows the parent's work.
  // A merged task's check stays as it passed.
  if (awaitsNoMerge(task.state)) {
    return {
      ...result('in_progress', undefined, `waiting: ${task.taskId} is ${task.state}`, [
        `\`${task.taskId}\` is ${task.state}: the coordinator merges a task only while it awaits its merge (docs/lifecycle.md).`,
        table,
      ]),
      notIfAbsent: true,
    };
  }
  // Held, the task awaits no merge for now: `/unhold` lets it (docs/commands.md).
  if (task.held || run.runHeld) {
    const where = task.held ? 'on the PR' : 'on the issue';
    return {
      ...result('in_progress', undefined, `held: /unhold ${where} lets it merge`, [
        task.held
          ? `\`${task.taskId}\` is held: the coordinator merges nothing of it until \`/unhold\`.`
          : `The run is held: the coordinator merges nothing of it until \`/unhold\` on the issue.`,
        table,
      ]),
      notIfAbsent: true,
    };
  }
  if (deps.length === 0) {
    return result('completed', 'success', approved(run, 'no dependencies'), [
      `\`${task.taskId}\` has no dependencies: merge order does not hold it back.`,
      run.requireApproval ? `It is approved at ${shortSha(headSha)}.` : '',
    ]);
  }
  return result('completed', 'success', approved(run, 'dependencies merged'), [
    `Every dependency of \`${task.taskId}\` has merged.`,
    run.requireApproval ? `It is approved at ${shortSha(headSha)}.` : '',
    table,
  ]);
}

/**
 * Whether a PR's view from GitHub, read before `written` was written to its head, is stale:
 * GitHub showed it `blocked`, as it does while a required order check has not passed, and the
 * check now passes. The merge decision then reads GitHub again rather than wait for an event
 * (the check's own result re-decides nothing: decideCheckResult).
 */
export function viewPredatesPassingOrderCheck(
  written: Pick<OrderCheck, 'conclusion'>,
  mergeableState: string,
): boolean {
  return written.conclusion === 'success' && mergeableState === 'blocked';
}

/**
 * A PR closed unmerged whose head carries an order check. Whoever may reopen it (a workflow
 * token with `pull_requests: write` too) may merge it at once by its head's newest check run,
 * before the coordinator hears of the reopening: so its check is kept as current as an open
 * PR's, and one that passed is withdrawn once its task will not merge (docs/security.md, "A
 * withdrawn approval").
 */
export function closedPullKeepsOrderCheck(pull: {
  state: string;
  merged: boolean;
  headSha: string;
  orderCheckSha: string | null;
}): boolean {
  return pull.state !== 'open' && !pull.merged && pull.orderCheckSha === pull.headSha;
}

/** The order check as a PR row records it last written: on which head, saying what, which run. */
export interface OrderCheckWritten {
  sha: string | null;
  /** `orderCheckSignature` of what it said. */
  signature: string | null;
  checkRunId: number | null;
}

export type OrderCheckWrite =
  { kind: 'none' } | { kind: 'update'; checkRunId: number } | { kind: 'create' };

/** What an order check says, as recorded: a check is rewritten only when this changes. */
export function orderCheckSignature(check: Pick<OrderCheck, 'status' | 'conclusion' | 'title'>) {
  return `${check.status}:${check.conclusion ?? ''}:${check.title}`;
}

/**
 * How `check` reaches `headSha` (docs/lifecycle.md, step 7): not at all when the head's check says
 * it already, or when the head has none and `notIfAbsent`; in place when the head has one; else a
 * new check run. A completed check run is not rewritten to in progress: GitHub keeps it completed
 * (Mergifyio/mergify#444, lyft/atlantis#265) and merging goes by a name's newest check run on the
 * head, so a passing check is withdrawn by a new one (docs/security.md, "A withdrawn approval").
 */
export function orderCheckWrite(
  written: OrderCheckWritten,
  headSha: string,
  check: OrderCheck,
): OrderCheckWrite {
  const onHead = written.sha === headSha;
  if (onHead && written.signature === orderCheckSignature(check)) return { kind: 'none' };
  if (check.notIfAbsent && !onHead) return { kind: 'none' };
  const reopens = written.signature?.startsWith('completed:') && check.status !== 'completed';
  if (onHead && written.checkRunId !== null && !reopens)
    return { kind: 'update', checkRunId: written.checkRunId };
  return { kind: 'create' };
}

/** The success title: "approved, dependencies merged" where an approval is required. */
function approved(run: OrderCheckInput, title: string): string {
  return run.requireApproval ? `approved, ${title}` : title;
}

/** "stacked on task_001 (#12)" while the one unmerged dependency is the task's stack parent. */
function stackedOnOne(
  task: MergeTask,
  unmerged: readonly { taskId: string }[],
): string | undefined {
  const on = task.stackedOn;
  if (!on || unmerged.length !== 1 || unmerged[0]!.taskId !== on.parent) return undefined;
  return stackedOnText(on);
}

function result(
  status: OrderCheck['status'],
  conclusion: OrderCheck['conclusion'],
  title: string,
  parts: readonly string[],
): OrderCheck {
  const summary = capBytes(parts.filter((p) => p !== '').join('\n\n'), CHECK_SUMMARY_MAX_BYTES);
  const out: OrderCheck = { status, title: capChars(plainText(title), CHECK_TITLE_MAX), summary };
  if (conclusion) out.conclusion = conclusion;
  return out;
}

function depsTable(
  deps: readonly string[],
  byId: ReadonlyMap<string, MergeTask>,
  openPr: ReadonlyMap<string, number>,
): string {
  if (deps.length === 0) return '';
  const rows = deps.map((id) => {
    const dep = byId.get(id);
    const pr = openPr.get(id) ?? dep?.prNumber;
    return `| ${cell(id)} | ${cell(dep?.title ?? '')} | ${dep?.state ?? 'not in this run'} | ${pr === undefined ? '' : `#${pr}`} |`;
  });
  return ['| dependency | title | state | PR |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** A table cell that reads as written: one line, no cell breaks, no markup. */
function cell(text: string): string {
  return inertInline(capChars(text, MAX_CELL));
}

/** The reason as a blockquote of its own lines, each read as written (no markup, no links). */
function quote(text: string): string {
  return inertLines(text)
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}
