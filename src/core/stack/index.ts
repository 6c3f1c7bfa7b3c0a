export { stackedBase, stackedPull } from './base.js';
export { checksLetStack } from './checks.js';
export {
  decideStacks,
  isDispatchReady,
  parentMovesToCheck,
  stackParentHeads,
  stackedOnText,
} from './decide-stack.js';
export type {
  ParentRewritten,
  StackDecision,
  StackPull,
  StackSnapshot,
  StackTask,
} from './types.js';
