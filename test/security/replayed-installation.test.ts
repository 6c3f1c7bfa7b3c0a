import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  OWNER,
  REPO,
  repositoryIdOf,
  startScenario,
  type Scenario,
} from '../e2e/harness.js';
import type { DeliveryView } from '../github-double/double-base.js';

const TWO_TASKS = ['```tasks', '- id: a', '  title: A', '- id: b', '  title: B', '```'].join('\n');

/**
 * docs/security.md, "The network": a captured delivery is signed, but neither its
 * `X-GitHub-Delivery` id nor its `X-GitHub-Event` header is, so it can be sent again, under
 * another id and as another event. An installation event that takes a repository from the App
 * ends its runs for good: sent again when GitHub no longer shows what it says, it ends nothing.
 */
describe('a captured installation event sent again', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  /** A run of two tasks whose workers are out, on a repository GitHub gives the App. */
  const running = async () => {
    s.double.setWorker(() => ({ kind: 'hang' }));
    const issue = await s.double.openIssue(REPO, {
      title: 'Two',
      body: TWO_TASKS,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    expect(await stateOf(issue)).toEqual({ run: 'running', tasks: ['running', 'running'] });
    return issue;
  };
  const stateOf = async (issue: number) => {
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
    const tasks = await s.app.store.runs.tasksOf(run!.id);
    return { run: run!.state, tasks: tasks.map((t) => t.state) };
  };
  const replay = async (event: string, captured: DeliveryView) => {
    const sent = await s.app.send(event, captured.payload, { id: randomUUID() });
    expect(sent.ok).toBe(true);
    await s.settle();
  };
  const only = (event: string, action: string) => {
    const found = s.double.deliveries({ event, action });
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  it('installation_repositories.removed, after the repository was given back: the run goes on', async () => {
    s = await startScenario();
    await s.double.removeFromInstallation(REPO, OWNER);
    await s.double.addToInstallation(REPO, OWNER);
    await s.settle();
    const captured = only('installation_repositories', 'removed');
    const issue = await running();

    await replay('installation_repositories', captured);
    expect(await stateOf(issue)).toEqual({ run: 'running', tasks: ['running', 'running'] });
    const repository = await s.app.store.repositories.getRepository(repositoryIdOf(s.double));
    expect(repository?.removedAt).toBeNull();
  });

  it('installation.suspend, after the suspension was lifted: the run goes on', async () => {
    s = await startScenario();
    await s.double.setInstallationSuspended(OWNER, true, OWNER);
    await s.double.setInstallationSuspended(OWNER, false, OWNER);
    await s.settle();
    const captured = only('installation', 'suspend');
    const issue = await running();

    await replay('installation', captured);
    expect(await stateOf(issue)).toEqual({ run: 'running', tasks: ['running', 'running'] });
    const repository = await s.app.store.repositories.getRepository(repositoryIdOf(s.double));
    expect(repository?.suspendedAt).toBeNull();
  });

  it('any deleted event (an outsider deleting their own comment) sent as installation.deleted: the run goes on', async () => {
    s = await startScenario({ private: false });
    const issue = await running();
    const comment = await s.double.comment(REPO, issue, 'first!', 'outsider');
    const token = s.double.createUserToken('outsider');
    const deleted = await fetch(`${s.double.apiUrl}/repos/${REPO}/issues/comments/${comment}`, {
      method: 'DELETE',
      headers: { authorization: `token ${token}` },
    });
    expect(deleted.status).toBe(204);
    await s.settle();
    const captured = only('issue_comment', 'deleted');

    await replay('installation', captured);
    expect(await stateOf(issue)).toEqual({ run: 'running', tasks: ['running', 'running'] });
    const repository = await s.app.store.repositories.getRepository(repositoryIdOf(s.double));
    expect(repository?.removedAt).toBeNull();
  });
});
