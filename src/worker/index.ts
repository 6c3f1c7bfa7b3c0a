export { runWorker } from './run-worker.js';
export type { RunWorkerOptions, WorkerResult } from './run-worker.js';
export { readWorkerEnv, WorkerEnvError } from './env.js';
export type { WorkerEnv, WorkerMode } from './env.js';
export type { FailureReason, WorkerOutcome } from './outcome.js';
export { splitShellWords } from './shell-words.js';
export { parseAgentOutput } from './agent-output.js';
export type { AgentReport, Usage } from './agent-output.js';
export { readUsage, taskMarker, updateBodyMarkers, usageMarker } from './markers.js';
