import { build } from 'esbuild';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  pinWorkerAction,
  projectRepository,
  readTemplate,
  WORKER_ACTION_MOVING_TAG,
  workerActionUses,
} from '../src/cli/templates.js';
import { packageRoot } from '../src/package-root.js';
import { ACTION_BUNDLE, actionBuildOptions } from './action-bundle.js';

await build(actionBuildOptions);
console.log(`wrote ${ACTION_BUNDLE}`);

// The template names the action by the repository package.json names, so a fork that names
// itself there gets a template that uses its own release (release.yml checks both are built).
const TEMPLATE = 'templates/agent-worker.yml';
const template = await readTemplate('agent-worker.yml');
const named = pinWorkerAction(
  template,
  workerActionUses(await projectRepository(), { tag: WORKER_ACTION_MOVING_TAG }),
);
if (named !== template) {
  await writeFile(join(packageRoot(), TEMPLATE), named);
  console.log(`wrote ${TEMPLATE}`);
}
