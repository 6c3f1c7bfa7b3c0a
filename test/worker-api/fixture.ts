import type { JWTPayload } from 'jose';
import { TEST_PUBLIC_URL } from '../helpers/app.js';
import { startOidcIssuer, type TestOidcIssuer } from '../helpers/oidc-issuer.js';
import { MAINTAINER, REPO, repositoryIdOf, startScenario, type Scenario } from '../e2e/harness.js';
import { ASSIGNMENT_PATH } from '../../src/protocol/assignment.js';

export interface WorkerWorld {
  s: Scenario;
  issuer: TestOidcIssuer;
  close(): Promise<void>;
}

/** A scenario whose app checks worker tokens against a local issuer (jose's cooldown off). */
export async function startWorkerWorld(
  options: Parameters<typeof startScenario>[0] = {},
): Promise<WorkerWorld> {
  const issuer = await startOidcIssuer();
  const s = await startScenario({
    ...options,
    oidc: { issuer: issuer.issuer, jwksUrl: issuer.jwksUrl, cooldownMs: 0 },
  });
  // Runs stay queued until a test moves them.
  s.double.setWorker(null);
  return {
    s,
    issuer,
    async close() {
      await s.close();
      await issuer.close();
    },
  };
}

/** Open an issue whose tasks block has these independent tasks, label it, and let it dispatch. */
export async function startIssue(s: Scenario, tasks: string[]): Promise<number> {
  const block = [
    '```tasks',
    ...tasks.flatMap((id) => [`- id: ${id}`, `  title: Task ${id}`, '  deps: []']),
    '```',
  ];
  const issue = await s.double.openIssue(REPO, {
    title: 'Worker API',
    body: `Do these.\n\n${block.join('\n')}\n`,
    user: MAINTAINER,
  });
  await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
  await s.settle();
  return issue;
}

/** The double's runs on a task's branch, oldest first. */
export function runsOn(s: Scenario, issue: number, task: string) {
  return s.double
    .runs(REPO)
    .filter((r) => r.head_branch === `agent/${issue}/${task}`)
    .sort((a, b) => (a.id as number) - (b.id as number));
}

/** The claims GitHub puts in the token of the worker run that was dispatched for the task. */
export function claimsOf(
  s: Scenario,
  run: Record<string, unknown>,
): JWTPayload & Record<string, string> {
  const ref = `refs/heads/${String(run.head_branch)}`;
  return {
    aud: TEST_PUBLIC_URL,
    sub: `repo:${REPO}:ref:${ref}`,
    event_name: 'workflow_dispatch',
    repository: REPO,
    repository_id: String(repositoryIdOf(s.double)),
    repository_owner: REPO.split('/')[0]!,
    ref,
    ref_type: 'branch',
    workflow: 'agent-coordinator worker',
    workflow_ref: `${REPO}/.github/workflows/agent-worker.yml@${ref}`,
    run_id: String(run.id),
    run_number: '1',
    run_attempt: '1',
    actor: 'agent-coordinator[bot]',
    runner_environment: 'github-hosted',
  };
}

export function bodyOf(run: { inputs: Record<string, string> }) {
  const { task_id, issue, attempt } = run.inputs;
  return { task_id: task_id!, issue: issue!, attempt: attempt! };
}

export interface Answer {
  status: number;
  json: Record<string, unknown>;
  text: string;
}

/** POST the worker's request as the worker action sends it. */
export async function ask(
  s: Scenario,
  authorization: string | undefined,
  body: unknown,
): Promise<Answer> {
  const res = await fetch(`${s.app.url}${ASSIGNMENT_PATH}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Left empty: the test asserts on the status and text.
  }
  return { status: res.status, json, text };
}
