import type { RunState, TaskState } from '../states.js';

/** Found again by this exact string, so the rendered body must contain it exactly once. */
export const STATUS_MARKER = '<!-- agent-coordinator:status -->';

export interface StatusTaskView {
  id: string;
  title: string;
  deps: string[];
  state: TaskState;
  attempts: number;
  prNumber?: number;
  prUrl?: string;
  costUsd?: number;
  /** Already formatted by formatWaitReason. */
  waiting?: string;
  /**
   * The agent configuration files (`.claude/…`, `.mcp.json`, `CLAUDE.md`, `AGENTS.md`) the task's
   * PR changes, as its body says (untrusted: the agent chose the names): warned about under the
   * table's notes.
   */
  agentConfigChanged?: string[];
  /**
   * Files the task's PR changes that its `files:` does not cover (docs/lifecycle.md,
   * "Overlapping files"): its real files decide its overlaps from then on; noted under the table.
   */
  outsideFiles?: string[];
  /** How many of its PR's files were too many to check against its `files:` in one render. */
  outsideUnchecked?: number;
  /**
   * GitHub would not let the App bring the task's PR up to date with `base` at its head (a 403,
   * `message` as GitHub wrote it: untrusted): a person merges `base` into it; noted under the table.
   */
  updateRefused?: { base: string; message: string };
}

export interface StatusView {
  runState: RunState;
  issueNumber: number;
  tasks: StatusTaskView[];
  spentUsd: number;
  budgetUsd: number;
  /** Already-formatted markdown from the plan validator. */
  planErrors?: string;
  /** Markdown lines, one bullet each. */
  notes?: string[];
  /** Why the run is held, as plain text (it may name who held it): shown as written. */
  holdReason?: string;
  /** ISO timestamp. */
  updatedAt: string;
}

export interface RenderOptions {
  /** GitHub rejects bodies over 65,536 characters; default 65,000. */
  maxChars?: number;
}
