import { afterEach, describe, expect, it } from 'vitest';
import {
  closeScenario,
  MAINTAINER,
  REPO,
  startScenario,
  type Scenario,
  ONE_TASK_PLAN,
} from './harness.js';

/**
 * A label event that cannot start a run is decided at ingest, as the label handler would decide
 * it (`labelStartsNothing`): stored as handled, never claimed, and no config read from GitHub.
 */
describe('label events decided at ingest', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  const configReads = () =>
    s.double.requests.filter((r) => r.route === 'GET /repos/{owner}/{repo}/contents/{path}').length;
  const labelDelivery = (name: string) => {
    const found = s.double
      .deliveries({ event: 'issues', action: 'labeled' })
      .filter((d) => (d.payload['label'] as { name: string }).name === name);
    expect(found).toHaveLength(1);
    return s.app.store.deliveries.get(found[0]!.guid);
  };

  it('stores a label known not to be the trigger as handled; the trigger still starts the run', async () => {
    s = await startScenario();
    s.double.setWorker(null);
    const issue = await s.double.openIssue(REPO, {
      title: 'Feature',
      body: ONE_TASK_PLAN,
      user: MAINTAINER,
    });

    // The repository's trigger is not known yet: the handler reads the config to learn it.
    await s.double.addLabel(REPO, issue, 'bug', MAINTAINER);
    await s.settle();
    // (Probot's config plugin looks in the repository, then in the owner's `.github`.)
    const readsForBug = configReads();
    expect(readsForBug).toBeGreaterThan(0);
    expect(await labelDelivery('bug')).toMatchObject({ status: 'done', attempts: 1 });

    // Now it is: another label is stored as handled at ingest, and GitHub is not asked again.
    await s.double.addLabel(REPO, issue, 'question', MAINTAINER);
    await s.settle();
    expect(await labelDelivery('question')).toMatchObject({ status: 'done', attempts: 0 });
    expect(configReads()).toBe(readsForBug);

    // The trigger itself always goes to the handler, which reads the config afresh and starts.
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    expect(await labelDelivery('agent')).toMatchObject({ status: 'done', attempts: 1 });
    expect(configReads()).toBeGreaterThan(readsForBug);
    expect(s.double.runs(REPO).length).toBe(1);
  });
});
