import { spawn, spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { ACTION_BUNDLE } from '../../../scripts/action-bundle.js';
import { ASSIGNMENT_PATH } from '../../../src/protocol/assignment.js';
import { isolatedEnv } from './git-fixture.js';

/** The committed action bundle, and how the tests run it as GitHub's runner does. */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const BUNDLE = join(ROOT, ACTION_BUNDLE);

interface Seen {
  oidc: { url: string; authorization?: string }[];
  assignments: { authorization?: string; body: unknown }[];
}

/** Plays GitHub's OIDC token endpoint and the coordinator's assignment endpoint. */
export async function startCoordinator(
  answer: (body: unknown) => { status: number; body: unknown },
): Promise<{ url: string; seen: Seen; server: Server }> {
  const seen: Seen = { oidc: [], assignments: [] };
  const read = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    return text;
  };
  const server = createServer((req, res) => {
    void (async () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'GET' && req.url?.startsWith('/oidc?')) {
        seen.oidc.push({ url: req.url, authorization: req.headers.authorization });
        return send(200, { value: 'eyJ.oidc-jwt-for-tests.sig' });
      }
      if (req.method === 'POST' && req.url === ASSIGNMENT_PATH) {
        const body: unknown = JSON.parse(await read(req));
        seen.assignments.push({ authorization: req.headers.authorization, body });
        const a = answer(body);
        return send(a.status, a.body);
      }
      send(404, { error: 'not found' });
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, server };
}

export interface BundleRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node dist/index.cjs` as the runner starts a JavaScript action: in the workspace, INPUT_* set. */
export async function runBundle(
  env: NodeJS.ProcessEnv,
  cwd: string,
  as: string[] = [],
  /** Sees the job's log as it is written. */
  onStdout?: (text: string) => void,
): Promise<BundleRun> {
  const [command, ...args] = [...as, process.execPath, BUNDLE];
  const child = spawn(command!, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => {
    stdout += t;
    onStdout?.(stdout);
  });
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** What the runner gives each job of attempt 1 of task_001 on issue 7 (acme/widgets). */
export function attemptJobEnv(coordinatorUrl: string, workspace: string): NodeJS.ProcessEnv {
  return {
    ...isolatedEnv,
    INPUT_TASK_ID: 'task_001',
    INPUT_ISSUE: '7',
    INPUT_ATTEMPT: '1',
    INPUT_MODE: 'work',
    INPUT_COORDINATOR_URL: coordinatorUrl,
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_RUN_ID: '987654321',
    GITHUB_WORKSPACE: workspace,
    GITHUB_SERVER_URL: 'https://github.com',
  };
}

/**
 * The assignment job against `coordinatorUrl` (startCoordinator), its OIDC request variables
 * set; what it leaves in its runner temp is handed to the agent job's (`temps[1]`), as the
 * workflow's artifact does on GitHub.
 */
export async function runAssignmentJob(
  env: NodeJS.ProcessEnv,
  cwd: string,
  coordinatorUrl: string,
  temps: readonly string[],
): Promise<BundleRun> {
  const run = await runBundle(
    {
      ...env,
      INPUT_STEP: 'assignment',
      RUNNER_TEMP: temps[0],
      ACTIONS_ID_TOKEN_REQUEST_URL: `${coordinatorUrl}/oidc?api-version=2.0`,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-bearer',
    },
    cwd,
  );
  expect(run.code, run.stdout).toBe(0);
  cpSync(join(temps[0]!, 'agent-coordinator'), join(temps[1]!, 'agent-coordinator'), {
    recursive: true,
  });
  return run;
}

/**
 * How to run a command as a user with neither root nor password-free sudo: `nobody`, through
 * setpriv, when these tests run as root or with sudo (GitHub's runners); else this very user.
 */
export function withoutPrivilege(): { prefix: string[] } {
  const nobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'];
  if (process.getuid!() === 0) return { prefix: nobody };
  if (spawnSync('sudo', ['-n', 'true']).status === 0)
    return { prefix: ['sudo', '-n', '--preserve-env', ...nobody] };
  return { prefix: [] };
}

/** Hands `path` to `owner` ("uid:gid"); with no privilege it stays this user's, as it is. */
export function chownAll(path: string, owner: string, prefix: string[]): void {
  if (prefix.length === 0) return;
  const sudo = process.getuid!() === 0 ? [] : ['sudo', '-n'];
  const [command, ...args] = [...sudo, 'chown', '-R', owner, path];
  expect(spawnSync(command!, args).status).toBe(0);
}
