import { runWorker } from './run-worker.js';

// The action's entry point (actions/worker/dist/index.cjs is this file bundled). The runner
// starts it with `node` in the job's workspace, inputs in INPUT_* variables.
void runWorker({ env: process.env, cwd: process.env.GITHUB_WORKSPACE || process.cwd() }).then(
  ({ exitCode }) => {
    process.exitCode = exitCode;
  },
);
