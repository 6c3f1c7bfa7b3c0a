import type { MergePull } from '../../core/merge/index.js';
import type { CheckInfo } from '../../github/port.js';
import type { PullRow } from '../../store/pulls.js';
import type { TaskRow } from '../../store/runs.js';

/** One open agent PR of the run as the merge decision saw it. */
export interface MergeTarget {
  row: PullRow;
  task: TaskRow;
  nodeId: string;
  pull: MergePull;
  /** The head's checks as GitHub showed them (empty when GitHub was not asked). */
  checks: CheckInfo[];
}
