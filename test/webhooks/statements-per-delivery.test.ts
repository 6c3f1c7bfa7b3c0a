import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCoordinator, TEST_APP_ID, type TestCoordinator } from '../helpers/app.js';
import { examplePayload } from '../helpers/payloads.js';

/** The processor records the statements each delivery's handling sends (README.md "Monitoring"). */
describe('statements per delivery', () => {
  let app: TestCoordinator;

  beforeAll(async () => {
    app = await startTestCoordinator({ githubBaseUrl: 'http://127.0.0.1:1' });
  });
  afterAll(() => app?.close());

  /** Count and sum of the histogram's observations for one event. */
  async function recorded(event: string): Promise<{ count: number; sum: number }> {
    const { values } = await app.metrics.statementsPerDelivery.get();
    const of = (suffix: string) =>
      values.find((v) => v.metricName?.endsWith(suffix) && v.labels.event === event)?.value ?? 0;
    return { count: of('_count'), sum: of('_sum') };
  }

  it("counts the statements of each delivery's handling", async () => {
    // A completion of a workflow run the coordinator never dispatched, in a new repository.
    const completion = (id: number) =>
      examplePayload('workflow_run', 'completed', {
        workflow_run: {
          ...examplePayload<{ workflow_run: object }>('workflow_run', 'completed').workflow_run,
          id,
          event: 'workflow_dispatch',
          display_title: 'Someone else’s workflow',
        },
      });
    expect((await app.send('workflow_run', completion(901))).status).toBe(202);
    await app.whenIdle();
    // The repository's first delivery records its installation and repository (2); the run is
    // looked up by its id among the attempts, the planner's included (1), and its title names
    // no task.
    expect(await recorded('workflow_run')).toEqual({ count: 1, sum: 3 });

    expect((await app.send('workflow_run', completion(902))).status).toBe(202);
    await app.whenIdle();
    // The repository is known now: only the look-up.
    expect(await recorded('workflow_run')).toEqual({ count: 2, sum: 4 });
  });

  it("costs nothing for a check suite of this App's own (its order checks)", async () => {
    // In the repository of the test above (known by now: no statements to record it).
    const { repository } = examplePayload<{ repository: object }>('workflow_run', 'completed');
    const suite = (id: number, appId: number) => {
      const example = examplePayload<{ check_suite: { app: object } }>('check_suite', 'completed');
      return examplePayload('check_suite', 'completed', {
        repository,
        check_suite: { ...example.check_suite, id, app: { ...example.check_suite.app, id: appId } },
      });
    };
    // Another App's suite: the open agent PRs with that head are looked up.
    expect((await app.send('check_suite', suite(801, TEST_APP_ID + 1))).status).toBe(202);
    await app.whenIdle();
    expect(await recorded('check_suite')).toEqual({ count: 1, sum: 1 });
    // This App's own is stored as handled at ingest: never handled, so not even counted.
    expect((await app.send('check_suite', suite(802, TEST_APP_ID))).status).toBe(202);
    await app.whenIdle();
    expect(await recorded('check_suite')).toEqual({ count: 1, sum: 1 });
  });

  it('costs nothing for a comment with no command in it', async () => {
    const { repository } = examplePayload<{ repository: object }>('workflow_run', 'completed');
    const example = examplePayload<{ comment: object }>('issue_comment', 'created');
    const comment = (id: number, body: string) =>
      examplePayload('issue_comment', 'created', {
        repository,
        comment: { ...example.comment, id, body },
      });
    const remark = 'comment-no-command';
    expect(
      (await app.send('issue_comment', comment(701, 'Nice work'), { id: remark })).status,
    ).toBe(202);
    await app.whenIdle();
    expect(await recorded('issue_comment')).toEqual({ count: 0, sum: 0 });
    // Stored as handled at ingest: in the ledger, never claimed.
    expect(await app.store.deliveries.get(remark)).toMatchObject({ status: 'done', attempts: 0 });
    // A command is handled (its issue has no run: the command is refused).
    const command = 'comment-command';
    expect(
      (await app.send('issue_comment', comment(702, '/retry a'), { id: command })).status,
    ).toBe(202);
    await app.whenIdle();
    expect(await app.store.deliveries.get(command)).toMatchObject({ attempts: 1 });
    expect((await recorded('issue_comment')).count).toBe(1);
  });
});
