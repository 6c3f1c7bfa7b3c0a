export { startGitHubDouble, type GitHubDoubleOptions } from './start.js';
export { GitHubDouble } from './scenario.js';
export type { Counts, DeliveryView, DoubleEvent, DoubleEventMap } from './double-base.js';
export type { FaultRule } from './server/faults.js';
export type { ActionsEnvOptions } from './actions-env.js';
export type { MintOptions, OidcIssuer } from './oidc/issuer.js';
export {
  GRAPHQL_MUTATION_PERMISSIONS,
  GRAPHQL_OBJECT_PERMISSIONS,
  REST_PERMISSIONS,
  type Access,
  type Requirement,
} from './server/permissions.js';
export { tokenPermission } from './server/auth.js';
export type { DeliveryChaos } from './webhooks/sender.js';
export type { CreateRepoOptions, WorkflowSpec } from './ops/repos.js';
export { WORKER_INPUTS, WORKER_RUN_NAME, WORKER_WORKFLOW } from './ops/repos.js';
export type { QueueRunResult } from './ops/merge-queue.js';
export type { Mergeability, MergeableState } from './ops/mergeability.js';
export type {
  Delivery,
  JobAnnotation,
  PermissionLevel,
  RequestLogEntry,
  RoleName,
  Violation,
} from './model.js';
export {
  autoWorker,
  manualWorker,
  DEFAULT_PLAN,
  type WorkerContext,
  type WorkerOutcome,
  type WorkerPolicy,
  type WorkerRun,
} from './worker/outcomes.js';
