import { afterEach, describe, expect, it } from 'vitest';
import { sweep } from '../../src/engine/sweep.js';
import {
  MAINTAINER,
  OWNER,
  REPO,
  repositoryIdOf,
  startScenario,
  closeScenario,
  statusComment,
  type Scenario,
} from './harness.js';

const independent = (n: number) =>
  [
    '```tasks',
    ...Array.from({ length: n }, (_, i) => [`- id: t${i}`, `  title: Task ${i}`]).flat(),
    '```',
  ].join('\n');

/** A second installation, on another account, with a repository of its own. */
const OTHER = 'initech/gadgets';
const CONFIG = 'concurrency:\n  maxParallel: 10\n';

/**
 * docs/running.md, "Removing the App": a repository taken from the App stops holding the
 * coordinator's capacity at once, and nothing more is asked of GitHub for it, which would refuse.
 */
describe('a repository removed from the App’s installation (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const start = async (repo: string, body: string) => {
    const issue = await s.double.openIssue(repo, { title: 'Many', body, user: MAINTAINER });
    await s.double.addLabel(repo, issue, 'agent', MAINTAINER);
    await s.settle();
    return issue;
  };
  const inFlight = (repo: string) =>
    s.double
      .runs(repo)
      .filter((r) => r.status !== 'completed')
      .map((r) => r.inputs.task_id);
  /** The coordinator's calls for the removed repository, or for a token of its installation. */
  const callsFor = (since: number, installationId: number) =>
    s.double.requests
      .slice(since)
      .filter(
        (r) =>
          r.path.includes(`/repos/${REPO}`) ||
          r.path.includes(`/app/installations/${installationId}/`),
      )
      .map((r) => `${r.method} ${r.path} ${r.status}`);

  /**
   * Two installations share a cap of 2: this repository's run holds both slots (its workers hang),
   * the other installation's task waits for one.
   */
  const capped = async () => {
    s = await startScenario({ config: CONFIG, env: { COORDINATOR_MAX_PARALLEL: '2' } });
    await s.double.createRepo({
      owner: 'initech',
      name: 'gadgets',
      private: true,
      files: { '.github/agent-coordinator.yml': CONFIG },
    });
    await s.double.setPermission(OTHER, MAINTAINER, 'maintain');
    s.double.setWorker(() => ({ kind: 'hang' }));
    const issue = await start(REPO, independent(4));
    expect(inFlight(REPO).sort()).toEqual(['t0', 't1']);
    await start(OTHER, independent(1));
    expect(inFlight(OTHER)).toEqual([]);
    const installationId = s.double.installations().find((i) => i.account === OWNER)!.id;
    return { issue, installationId };
  };

  it('ends its run at once: the waiting task of another installation starts, and the sweep asks GitHub nothing for it', async () => {
    const { issue, installationId } = await capped();

    await s.double.removeFromInstallation(REPO, OWNER);
    await s.settle();
    // Its slots went to the other installation's task when the removal was handled.
    expect(inFlight(OTHER)).toEqual(['t0']);
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
    expect(run).toMatchObject({
      state: 'cancelled',
      endReason: 'the App was removed from this repository',
    });
    expect(run!.finishedAt).not.toBeNull();
    const tasks = await s.app.store.runs.tasksOf(run!.id);
    expect(tasks.map((t) => t.state)).toEqual(Array(4).fill('cancelled'));

    const since = s.double.requests.length;
    await s.app.sweep();
    await s.settle();
    expect(callsFor(since, installationId)).toEqual([]);

    // Given back: the ended run stays ended, and its status comment says why.
    await s.double.addToInstallation(REPO, OWNER);
    await s.settle();
    await s.app.sweep();
    await s.settle();
    expect(await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue)).toMatchObject({
      state: 'cancelled',
    });
    expect(inFlight(OTHER)).toEqual(['t0']);
    expect(statusComment(s.double, issue)).toContain(
      'Ended: the App was removed from this repository.',
    );
  });

  it('ends its runs when the installation is suspended, which lifting the suspension leaves ended', async () => {
    const { issue, installationId } = await capped();

    await s.double.setInstallationSuspended(OWNER, true, OWNER);
    await s.settle();
    expect(inFlight(OTHER)).toEqual(['t0']);
    const repositoryId = repositoryIdOf(s.double);
    expect(await s.app.store.runs.latestRun(repositoryId, issue)).toMatchObject({
      state: 'cancelled',
      endReason: "the App's installation was suspended",
    });
    const since = s.double.requests.length;
    await s.app.sweep();
    await s.settle();
    expect(callsFor(since, installationId)).toEqual([]);

    await s.double.setInstallationSuspended(OWNER, false, OWNER);
    await s.settle();
    await s.app.sweep();
    await s.settle();
    expect(await s.app.store.runs.latestRun(repositoryId, issue)).toMatchObject({
      state: 'cancelled',
    });
    expect(statusComment(s.double, issue)).toContain(
      "Ended: the App's installation was suspended.",
    );
  });

  it('ends from the sweep a removal recorded whose run the event’s handling did not end', async () => {
    const { issue, installationId } = await capped();
    // GitHub takes the repository while its deliveries fail, and the removal is recorded as the
    // event's handling does first; the handling goes no further (the process died).
    s.double.webhooksDown = true;
    await s.double.removeFromInstallation(REPO, OWNER);
    s.double.webhooksDown = false;
    const repositoryId = repositoryIdOf(s.double);
    await s.app.store.repositories.recordRemoved(installationId, [repositoryId]);

    const since = s.double.requests.length;
    // The engine's sweep alone: the coordinator's also asks GitHub to redeliver the failed event.
    const report = await sweep(s.app.engine);
    await s.app.engine.flushStatus();
    await s.settle();
    expect(report.ended).toBe(1);
    expect(await s.app.store.runs.latestRun(repositoryId, issue)).toMatchObject({
      state: 'cancelled',
      endReason: 'the App was removed from this repository',
    });
    expect(inFlight(OTHER)).toEqual(['t0']);
    expect(callsFor(since, installationId)).toEqual([]);
  });
});
