import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCoordinator, type TestCoordinator } from '../helpers/app.js';
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
});
