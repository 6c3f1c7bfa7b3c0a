export {
  afterFailedAttempt,
  afterSendBack,
  modeAfterFailedAttempt,
  type RetryPolicy,
} from './retries.js';
export { dependentsToBlock, dependentsToUnblock, type TaskGraph } from './dependents.js';
export {
  APPROVABLE_TASK_STATES,
  decideApproval,
  type Approval,
  type ApprovalVerdict,
} from './approval.js';
export { decideChangesRequested, type SubmittedReview } from './changes-requested.js';
