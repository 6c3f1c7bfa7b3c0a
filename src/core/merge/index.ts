export { approversToRead, decideMerges, pullsNeedingGitHubView } from './decide-merges.js';
export { classifyMergeError } from './classify-merge-error.js';
export {
  classifyUpdateRefusal,
  decideUpdateAnswer,
  refusalNeedsPull,
  updateRefusedAtHead,
  type BranchMergeAnswer,
  type BranchMergeRefusal,
  type PullAfterRefusal,
  type UpdateAnswer,
  type UpdateRefusal,
} from './classify-update-refusal.js';
export { decideUpdateHold, type UpdateHoldInput } from './update-hold.js';
export { offRunBase } from './run-base.js';
export type { MergeErrorKind } from './merge-error-rules.js';
export {
  checkMergeGroup,
  mergeGroupApproversToRead,
  type MergeGroupPull,
  type MergeGroupRun,
  type MergeGroupTask,
} from './merge-group.js';
export {
  closedPullKeepsOrderCheck,
  isOrderCheck,
  ORDER_CHECK_NAME,
  orderCheck,
  orderCheckSignature,
  orderCheckWrite,
  viewPredatesPassingOrderCheck,
  type OrderCheck,
} from './order-check.js';
export { CHECK_SUMMARY_MAX_BYTES, CHECK_TITLE_MAX } from './check-text.js';
export type {
  ApproverStanding,
  MergeCheck,
  MergeDecision,
  MergePull,
  MergeSnapshot,
  HeldSlot,
  MergeTask,
  WaitReasonKind,
} from './types.js';
export { decideChecksRerun, type FailingCheck } from './flaky-checks.js';
export {
  ACTIONS_APP_SLUG,
  countedChecks,
  needsActionsRuns,
  runStartersToRead,
  type ActionsRunOrigin,
  type HeadCheck,
  type RunStarters,
} from './check-origin.js';
export {
  decideDequeued,
  readsTaskOnDequeue,
  type DequeuedEffect,
  type DequeuedEvent,
  type DequeuedSnapshot,
} from './dequeued.js';
export {
  checkResultFactsOf,
  decideCheckResult,
  decideChecksCompleted,
  namedAgentPulls,
  type CheckedPull,
  type CheckResultFacts,
  type ChecksCompletedEffect,
  type ChecksCompletedRun,
  type NamedAgentPull,
} from './checks-completed.js';
export {
  decideMergeGroup,
  mergeGroupLastPr,
  mergeGroupMembers,
  mergeGroupNumbers,
  type MergeGroupEffect,
  type QueuedAgentPull,
} from './merge-group-event.js';
