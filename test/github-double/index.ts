export { startGitHubDouble, type GitHubDoubleOptions } from './start.js';
export { GitHubDouble } from './scenario.js';
export type { DeliveryView } from './double-base.js';
export type { FaultRule } from './server/faults.js';
export {
  GRAPHQL_MUTATION_PERMISSIONS,
  GRAPHQL_OBJECT_PERMISSIONS,
  REST_PERMISSIONS,
  type Access,
} from './server/permissions.js';
export type { DeliveryChaos } from './webhooks/sender.js';
export { WORKER_INPUTS, WORKER_RUN_NAME, WORKER_WORKFLOW } from './ops/repos.js';
export type { RequestLogEntry } from './model.js';
export { manualWorker, type WorkerPolicy } from './worker/outcomes.js';
