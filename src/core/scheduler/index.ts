export { DependencyIndex, type DependencyNode } from './dependency-index.js';
export { explainRun, explainTask, formatWaitReason } from './explain.js';
export type { ExplainInput, ExplainTaskInput } from './explain.js';
export { selectDispatches } from './select-dispatches.js';
export { candidateKey, compareCandidates } from './types.js';
export type {
  Candidate,
  SchedulerInput,
  TaskExplanation,
  UnmergedDep,
  WaitReason,
} from './types.js';
