/** What the crash test and the double's process share: the scenario and the control messages. */

export const OWNER = 'octo-org';
export const REPO_NAME = 'widgets';
export const REPO = `${OWNER}/${REPO_NAME}`;
export const MAINTAINER = 'maintainer';
export const DONE_LABEL = 'agent:done';
export const STATUS_MARKER = '<!-- agent-coordinator:status -->';
/** What the status comment says once every task is merged. */
export const DONE_STATUS = 'every task is merged';

export { SPEC_EXAMPLE_PLAN } from '../fixtures/spec-example-plan.js';

/** Merges need no person: the run goes from label to closed issue on its own. */
export const REPO_CONFIG = 'merge:\n  requireApproval: false\n';

export interface StartParams {
  webhookSecret: string;
  appId: number;
  webhookUrl: string;
  /** Events GitHub never delivers (left out of the App's subscription). */
  missedEvents?: string[];
  /** The default branch has a merge queue, which GitHub runs by itself. */
  mergeQueue?: boolean;
  /**
   * `dispatch.stack` with approvals by a maintainer (docs/stacking.md): once task_002 and
   * task_003 are stacked on task_001, the maintainer asks task_001 for changes (`review`: the
   * stacks follow its new head), then approves every PR; or vetoes task_001 (`veto`: the
   * stacked children are cancelled), then `/retry`s it (they stack anew), then approves every PR;
   * or pushes a workflow file to task_001's branch (`workflow`: GitHub refuses the App the
   * children's updates, and the coordinator tells their PRs), merges task_001's branch into each
   * child's once its PR says so, then approves every PR; or rewrites task_001's branch
   * (`rewrite`: a commit on main's head in place of task_001's, which the children hold), and
   * approves every PR once each child's PR says the branch was rewritten.
   */
  stack?: StackPlay;
}

export type StackPlay = 'review' | 'veto' | 'workflow' | 'rewrite';

/** `dispatch.stack` on, and every merge waits for a maintainer's `/approve`. */
export const STACK_CONFIG = 'dispatch:\n  stack: true\n';

export interface DispatchedRun {
  id: number;
  task: string;
  attempt: string;
  mode: string;
  status: string;
  conclusion: string | null;
}

export interface DoubleReport {
  issue: { state: string; labels: string[] };
  runs: DispatchedRun[];
  pulls: Array<{ number: number; task: string; state: string; merged: boolean }>;
  /** Successful `PUT …/merge` answers, per PR number. */
  merges: Record<number, number>;
  /** Tasks in the order GitHub merged their PRs. */
  mergeOrder: string[];
  /** The status comments on the issue (there should be one). */
  statusComments: string[];
  deliveries: {
    total: number;
    /** Guids with at least one attempt that was not answered 2xx. */
    failedGuids: string[];
    /** Of those, the guids no attempt of which was ever answered 2xx. */
    neverDeliveredGuids: string[];
    redeliveries: number;
  };
  problems: string[];
}

export type DoubleRequest =
  | { method: 'start'; params: StartParams }
  | {
      method: 'openLabelledIssue';
      params: { withPlan: boolean; command?: string; files?: boolean };
    }
  | { method: 'waitForRunDone'; params: { issue: number; timeoutMs: number } }
  | { method: 'settle'; params: Record<string, never> }
  | { method: 'report'; params: { issue: number } }
  | { method: 'close'; params: Record<string, never> };
