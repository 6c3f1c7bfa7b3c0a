import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

// Templates ship next to package.json; code runs from src/ (tsx) or dist/src/ (built),
// so paths are resolved from the package root, not from this file.
export async function readTemplate(
  name: 'agent-worker.yml' | 'agent-coordinator.yml',
): Promise<string> {
  return readFile(join(packageRoot(), 'templates', name), 'utf8');
}

interface PackageJson {
  version?: string;
  repository?: string | { url?: string };
}

async function packageJson(): Promise<PackageJson> {
  return JSON.parse(await readFile(join(packageRoot(), 'package.json'), 'utf8')) as PackageJson;
}

export async function packageVersion(): Promise<string> {
  return (await packageJson()).version ?? '0.0.0';
}

/** Where the worker action lives inside this project's repository. */
export const WORKER_ACTION_PATH = 'actions/worker';
/** The tag that follows the latest release of the current major version. */
export const WORKER_ACTION_MOVING_TAG = 'v0';

export interface GitHubRepo {
  owner: string;
  repo: string;
}

/**
 * `owner/name` of package.json's `repository`: the one place the project names the
 * repository it is built and released from, so a fork that names itself there publishes its
 * own worker action (release.yml checks it) and `init` and the template pin that one.
 */
export async function projectRepository(): Promise<GitHubRepo> {
  const { repository } = await packageJson();
  const url = typeof repository === 'string' ? repository : repository?.url;
  const match = /github\.com[/:]([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url ?? '');
  if (!match) throw new Error('package.json: repository is not a GitHub URL');
  return { owner: match[1]!, repo: match[2]! };
}

export function workerActionName({ owner, repo }: GitHubRepo): string {
  return `${owner}/${repo}/${WORKER_ACTION_PATH}`;
}

/** The `uses:` line's value: a tag, or a commit with the version it is as a comment. */
export function workerActionUses(
  project: GitHubRepo,
  ref: { tag: string } | { sha: string; version: string },
): string {
  const name = workerActionName(project);
  return 'tag' in ref ? `${name}@${ref.tag}` : `${name}@${ref.sha} # v${ref.version}`;
}

/**
 * Put `uses` in place of each of the worker action's `uses:` lines (one in each of the
 * workflow's three jobs), whatever repository and ref they named before: the template may
 * still name the repository a fork was made from.
 */
export function pinWorkerAction(workflow: string, uses: string): string {
  const line = new RegExp(
    `^([ \\t]*(?:- )?uses:[ \\t]*)[\\w.-]+/[\\w.-]+/${WORKER_ACTION_PATH}@\\S+(?:[ \\t]+#.*)?$`,
    'gm',
  );
  if (!workflow.match(line))
    throw new Error(`the workflow does not use an action at <owner>/<repo>/${WORKER_ACTION_PATH}`);
  return workflow.replace(line, (_m, prefix: string) => `${prefix}${uses}`);
}
