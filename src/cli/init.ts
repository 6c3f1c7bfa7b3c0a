import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { CliIo } from './io.js';
import { releaseCommit } from './release-pin.js';
import {
  packageVersion,
  pinWorkerAction,
  projectRepository,
  readTemplate,
  WORKER_ACTION_MOVING_TAG,
  workerActionUses,
} from './templates.js';

export const WORKFLOW_PATH = '.github/workflows/agent-worker.yml';
export const CONFIG_PATH = '.github/agent-coordinator.yml';

const NEXT_STEPS = `
Next steps:
  1. Create the GitHub App (permissions and events: see app.yml of agent-coordinator) and
     install it on this repository.
     The App must be reachable from GitHub's runners at its PUBLIC_URL: the worker asks it
     for its task there.
  2. In Settings → Secrets and variables → Actions, add the secret ANTHROPIC_API_KEY for
     Claude Code (or set the variable AGENT_COMMAND to run another agent).
  3. Commit both files to the default branch: GitHub dispatches only workflows it finds there.
  4. Label an issue \`agent\` to start.
`;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * The template with the worker action pinned to the commit of this version's release tag
 * (`@<sha> # v<version>`, which Dependabot and Renovate know how to update), or left on the
 * moving tag when GitHub cannot be asked.
 */
async function pinnedWorkflow(io: CliIo): Promise<string> {
  const template = await readTemplate('agent-worker.yml');
  const project = await projectRepository();
  const version = await packageVersion();
  const tag = `v${version}`;
  const commit = await releaseCommit(project, tag, io.env);
  if (commit.ok) {
    io.out(`pinned the worker action to ${tag} (${commit.sha})\n`);
    return pinWorkerAction(template, workerActionUses(project, { sha: commit.sha, version }));
  }
  io.err(
    `could not look up the commit of ${tag} (${commit.why}): the workflow uses the moving tag ${WORKER_ACTION_MOVING_TAG}; run init again, or pin it by hand, to pin it\n`,
  );
  return pinWorkerAction(template, workerActionUses(project, { tag: WORKER_ACTION_MOVING_TAG }));
}

export async function runInit(args: string[], io: CliIo): Promise<number> {
  let force = false;
  const positional: string[] = [];
  for (const arg of args) {
    if (arg === '--force' || arg === '-f') force = true;
    else if (arg.startsWith('-')) {
      io.err(
        `agent-coordinator init: unknown option ${arg}\nusage: agent-coordinator init [dir] [--force]\n`,
      );
      return 2;
    } else positional.push(arg);
  }
  if (positional.length > 1) {
    io.err('agent-coordinator init: expected at most one directory\n');
    return 2;
  }
  const root = resolve(io.cwd, positional[0] ?? '.');
  const workflow = await pinnedWorkflow(io);
  const files = [
    { path: WORKFLOW_PATH, content: workflow },
    { path: CONFIG_PATH, content: await readTemplate('agent-coordinator.yml') },
  ];

  let skipped = 0;
  for (const file of files) {
    const target = join(root, file.path);
    const rel = relative(io.cwd, target);
    const shown = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : target;
    if (!force && (await exists(target))) {
      io.err(`${shown} exists; left as is (use --force to overwrite)\n`);
      skipped++;
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content);
    io.out(`wrote ${shown}\n`);
  }
  if (skipped < files.length) io.out(NEXT_STEPS);
  return skipped > 0 ? 1 : 0;
}
