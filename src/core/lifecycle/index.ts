export {
  afterFailedAttempt,
  afterSendBack,
  modeAfterFailedAttempt,
  type RetryPolicy,
} from './retries.js';
export { dependentsToBlock, dependentsToUnblock, type TaskGraph } from './dependents.js';
export {
  APPROVABLE_TASK_STATES,
  approvalAfterPush,
  decidePush,
  commandApproval,
  decideApproval,
  NO_APPROVAL,
  type Approval,
  type ApprovalVerdict,
  type BranchPush,
  type BranchUpdate,
  type PushVerdict,
  type CommandApproval,
  type CommandApprovalFacts,
} from './approval.js';
export { decideChangesRequested, type SubmittedReview } from './changes-requested.js';
export { decideWorkerRun, plannerMoveAfter } from './worker-run.js';
export { budgetApplies, decideBudget } from './budget.js';
export { decideDispatchFailure } from './dispatch-refusal.js';
export { decideSettle, tasksToCancel } from './settle.js';
export {
  decideInstallationLoss,
  repositoriesRemovedNow,
  type InstallationLoss,
  type InstallationNow,
} from './access-loss.js';
export {
  decideUnreachableRun,
  unreachableBecause,
  type Unreachable,
  type UnreachableRunEffect,
  type UnreachableRunSnapshot,
} from './reachability.js';
export {
  decideStalledRun,
  decideStalledTask,
  hasOpenPull,
  readsLatestAttempt,
  readsPullRow,
  sweepRunAction,
  type StalledRunEffect,
  type StalledRunTask,
} from './stalled.js';
export { missesChangedFiles } from './changed-files.js';
export {
  decideSweepAttempt,
  sweepAttemptRead,
  type SweepAttemptEffect,
  type SweepAttemptRead,
  type SweepAttemptSnapshot,
} from './sweep-attempt.js';
export {
  attemptSucceeded,
  awaitsPlan,
  awaitsSpendOfItsRun,
  chargedUsage,
  chargesRerun,
  COMPLETED_BEFORE_ITS_RUN,
  failureOf,
  inMergeQueue,
  isAttemptOpen,
  isCheckPending,
  isOpenPull,
  isRunDone,
  isRunCancelled,
  awaitsNoMerge,
  isTaskMerged,
  mergeReleased,
  phaseWithRun,
  runNeverStarted,
} from './facts.js';
export {
  closedRecordsMergeFirst,
  closeRefusalReason,
  decidePullClosed,
  readsCloserRole,
  type PullClosedEffect,
  type PullClosedEvent,
} from './pull-closed.js';
export {
  decideIssueStop,
  type IssueNow,
  type IssueStopEvent,
  type IssueStopVerdict,
} from './issue-stop.js';
export { decideLabelStart, type LabelStartFacts, type LabelStartVerdict } from './label-start.js';
export {
  changesRequestedFeedback,
  decideReview,
  reviewReads,
  type ReviewEffect,
  type ReviewEvent,
  type ReviewSnapshot,
} from './review.js';
export {
  decideReviewDismissed,
  type DismissedReview,
  type DismissedReviewEffect,
  type DismissedReviewSnapshot,
} from './review-dismissed.js';
export {
  decidePullChanged,
  type PullChangedEffect,
  type PullChangedEvent,
  type PullChangedSnapshot,
} from './pull-changed.js';
export {
  decidePullLink,
  isAgentPull,
  isOpenedByApp,
  isOpenAppPull,
  decideLookAlikePull,
  type PullLinkDecision,
  type PullLinkEvent,
  type PullLinkSnapshot,
} from './pull-link.js';
export {
  decideAttemptCompleted,
  decideRunAdoption,
  describeAttemptFailure,
  isOpenPullOfRepository,
  namedWorkerRun,
  readsAgentPull,
  type AttemptCompletedEffect,
  type AttemptSpend,
  type AttemptCompletedEvent,
  type AttemptCompletedSnapshot,
} from './attempt-completed.js';
