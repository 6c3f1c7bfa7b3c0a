export { decideMerges, pullsNeedingGitHubView } from './decide-merges.js';
export { classifyMergeError, type MergeErrorClass } from './classify-merge-error.js';
export {
  MERGE_ERROR_RULES,
  type MergeErrorKind,
  type MergeErrorRule,
} from './merge-error-rules.js';
export {
  checkMergeGroup,
  type MergeGroupPull,
  type MergeGroupRun,
  type MergeGroupTask,
  type MergeGroupVerdict,
} from './merge-group.js';
export {
  ORDER_CHECK_NAME,
  orderCheck,
  type OrderCheck,
  type OrderCheckInput,
} from './order-check.js';
export { CHECK_SUMMARY_MAX_BYTES, CHECK_TITLE_MAX } from './check-text.js';
export type {
  MergeCheck,
  MergeDecision,
  MergeMethod,
  MergePull,
  MergeSnapshot,
  HeldSlot,
  MergeTask,
  WaitReasonKind,
} from './types.js';
