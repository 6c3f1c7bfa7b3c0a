import { Probot } from 'probot';
import { describe, expect, it } from 'vitest';
import { createApp, type AppServiceInput } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { TriggerLabelCache } from '../../src/config/trigger-labels.js';
import { HandledEvents } from '../../src/webhooks/handled-events.js';
import { LogCapture, TEST_APP_ID, TEST_PRIVATE_KEY, TestOctokit } from '../helpers/app.js';
import { planMarker } from '../../src/protocol/markers.js';
import { examplePayload } from '../helpers/payloads.js';

/** The real app's handlers, registered on a Probot whose `app.on` calls `handled` records. */
async function appRecordingInto(handled: HandledEvents): Promise<Probot> {
  const probot = new Probot({
    appId: TEST_APP_ID,
    privateKey: TEST_PRIVATE_KEY,
    secret: 'x',
    Octokit: TestOctokit,
    log: createLogger({ level: 'silent', destination: new LogCapture() }),
  });
  // Registering reads none of the services: they are used when a handler runs.
  await probot.load(createApp({} as AppServiceInput, handled));
  return probot;
}

describe('the events the app acts on', () => {
  it('are the ones its handlers register, by event or by event and action', async () => {
    const handled = new HandledEvents();
    const probot = await appRecordingInto(handled);

    for (const [event, action] of [
      ['issues', 'labeled'],
      ['issues', 'closed'],
      ['issue_comment', 'created'],
      ['pull_request', 'opened'],
      ['pull_request', 'closed'],
      ['pull_request_review', 'submitted'],
      ['workflow_run', 'completed'],
      ['check_run', 'completed'],
      ['merge_group', 'checks_requested'],
      ['installation', 'created'],
    ] as const)
      expect(handled.actsOn(event, action), `${event}.${action}`).toBe(true);
    for (const [event, action] of [
      ['workflow_job', 'queued'],
      ['workflow_job', 'completed'],
      ['check_run', 'created'],
      ['issues', 'opened'],
      ['issue_comment', 'edited'],
      ['push', undefined],
    ] as const)
      expect(handled.actsOn(event, action), `${event}.${action}`).toBe(false);

    // A handler registered later, on the same app, counts as well.
    probot.on('issues.opened', async () => {});
    expect(handled.actsOn('issues', 'opened')).toBe(true);
  });

  it("leave out this App's own completed check runs and suites, and no one else's", async () => {
    const handled = new HandledEvents(TEST_APP_ID);
    const probot = await appRecordingInto(handled);
    const from = (event: 'check_run' | 'check_suite', action: string, appId: number) => {
      const payload = examplePayload<Record<string, Record<string, unknown>>>(event, action);
      payload[event] = {
        ...payload[event],
        app: { ...(payload[event]!.app as object), id: appId },
      };
      return payload;
    };
    expect(
      handled.actsOn('check_run', 'completed', from('check_run', 'completed', TEST_APP_ID)),
    ).toBe(false);
    expect(
      handled.actsOn('check_suite', 'completed', from('check_suite', 'completed', TEST_APP_ID)),
    ).toBe(false);
    // Another App's results (CI) are what merges wait on.
    expect(handled.actsOn('check_run', 'completed', from('check_run', 'completed', 15368))).toBe(
      true,
    );
    expect(
      handled.actsOn('check_suite', 'completed', from('check_suite', 'completed', 15368)),
    ).toBe(true);
    // A person asking to re-run this App's check is not its own result.
    probot.on('check_run.rerequested', async () => {});
    expect(
      handled.actsOn('check_run', 'rerequested', from('check_run', 'rerequested', TEST_APP_ID)),
    ).toBe(true);
    // Without an App id nothing is taken for its own.
    const withoutId = new HandledEvents();
    withoutId.recordFrom(probot);
    probot.on('check_run.completed', async () => {});
    expect(
      withoutId.actsOn('check_run', 'completed', from('check_run', 'completed', TEST_APP_ID)),
    ).toBe(true);
  });

  it('leave out new comments that hold neither a command nor the planner’s plan', async () => {
    const handled = new HandledEvents(TEST_APP_ID);
    await appRecordingInto(handled);
    const comment = (body: string, more: Record<string, unknown> = {}) => {
      const payload = examplePayload<{ comment: object }>('issue_comment', 'created');
      return examplePayload('issue_comment', 'created', {
        comment: { ...payload.comment, body },
        ...more,
      });
    };
    expect(handled.actsOn('issue_comment', 'created', comment('Thanks, looks good'))).toBe(false);
    expect(handled.actsOn('issue_comment', 'created', comment('/approve'))).toBe(true);
    const plan = `${planMarker(5)}\n\n\`\`\`yaml\ntasks: []\n\`\`\``;
    const byBot = (body: string, login: string, appId: number) => {
      const payload = comment(body, { sender: { login, type: 'Bot' } }) as {
        comment: Record<string, unknown>;
      };
      payload.comment.user = { login, type: 'Bot' };
      payload.comment.performed_via_github_app = { id: appId };
      return payload;
    };
    const byPlanner = (body: string) => byBot(body, 'agent-coordinator[bot]', TEST_APP_ID);
    expect(handled.actsOn('issue_comment', 'created', byPlanner(plan))).toBe(true);
    expect(handled.actsOn('issue_comment', 'created', byPlanner('/approve'))).toBe(false);
    // The Actions bot's comments are performed via the github-actions App, not this one.
    const byActions = byBot(plan, 'github-actions[bot]', 15368);
    expect(handled.actsOn('issue_comment', 'created', byActions)).toBe(false);
  });

  it('leave out labels the label handler knows cannot start a run', async () => {
    const triggers = new TriggerLabelCache();
    const handled = new HandledEvents(TEST_APP_ID, triggers);
    await appRecordingInto(handled);
    const example = examplePayload<{ repository: { id: number } }>('issues', 'labeled');
    const labeled = (name: string, senderType = 'User') =>
      examplePayload('issues', 'labeled', {
        label: { id: 1, name },
        sender: { login: 'someone', type: senderType },
      });
    // Before the repository's trigger is known, every person's label goes to the handler.
    expect(handled.actsOn('issues', 'labeled', labeled('bug'))).toBe(true);
    triggers.remember(example.repository.id, 'agent');
    expect(handled.actsOn('issues', 'labeled', labeled('bug'))).toBe(false);
    expect(handled.actsOn('issues', 'labeled', labeled('agent'))).toBe(true);
    expect(handled.actsOn('issues', 'labeled', labeled('agent', 'Bot'))).toBe(false);
    // Removing a label is another action, handled as before.
    expect(handled.actsOn('issues', 'closed', labeled('bug'))).toBe(true);
  });
});
