export { DependencyIndex, type DependencyNode } from './dependency-index.js';
export { explainRun, explainTask, formatWaitReason } from './explain.js';
export type { ExplainInput, ExplainTaskInput } from './explain.js';
export { IndexedHeap } from './indexed-heap.js';
export { ReadyQueue } from './ready-queue.js';
export {
  DEFAULT_PRIORITY,
  SchedulerIndex,
  type SchedulerTask,
  type TakeOptions,
} from './scheduler-index.js';
export { selectDispatches } from './select-dispatches.js';
export { candidateKey, compareCandidates } from './types.js';
export type {
  Candidate,
  SchedulerDecision,
  SchedulerInput,
  TaskExplanation,
  UnmergedDep,
  WaitReason,
} from './types.js';
