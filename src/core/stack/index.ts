export { stackedBase, stackedPull } from './base.js';
export { checksLetStack } from './checks.js';
export { decideStacks, isDispatchReady, stackParentHeads, stackedOnText } from './decide-stack.js';
export type { StackDecision, StackPull, StackSnapshot, StackTask } from './types.js';
