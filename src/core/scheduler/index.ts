export { DependencyIndex, type DependencyNode } from './dependency-index.js';
export { explainRun, explainTask, formatWaitReason } from './explain.js';
export type { ExplainInput, ExplainTaskInput } from './explain.js';
export { overlapWaits, selectDispatches } from './select-dispatches.js';
export {
  capacityView,
  fairStarts,
  installationLoads,
  installationRoom,
  repositoriesToHandOff,
} from './fair-share.js';
export type { CapacityView, InstallationLoad, RepositoryLoad } from './fair-share.js';
export { filesOutsideDeclaration, overlapPath, RepoTree, taskPaths } from './overlap.js';
export type { OutsideFiles, TaskPaths } from './overlap.js';
export { COMPARE_STEPS, decideOverlapWaits, MATCH_STEPS, overlapMayWait } from './overlap-input.js';
export type { OverlapWaits, PathClaimant } from './overlap-input.js';
export { candidateKey, compareCandidates } from './types.js';
export type {
  Candidate,
  PathHolder,
  SchedulerInput,
  TaskExplanation,
  UnmergedDep,
  WaitReason,
} from './types.js';
