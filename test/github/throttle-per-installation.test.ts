import { Probot } from 'probot';
import { describe, expect, it } from 'vitest';
import { CoordinatorOctokit, throttleIdOf } from '../../src/github/coordinator-octokit.js';
import { TEST_APP_ID, TEST_PRIVATE_KEY } from '../helpers/app.js';
import { examplePayload } from '../helpers/payloads.js';

/**
 * Writes are throttled per installation, whichever client makes them (bench/README.md,
 * benchmark 6): the client Probot hands a webhook handler is keyed like the engine's.
 */
describe('the throttling key', () => {
  it('is the installation of the client, else what the options say', () => {
    expect(throttleIdOf({ auth: { installationId: 42 } })).toBe('42');
    expect(throttleIdOf({ auth: { installationId: 42 }, throttle: { id: 'other' } })).toBe('42');
    expect(throttleIdOf({ throttle: { id: 'app' } })).toBe('app');
    expect(throttleIdOf({})).toBeUndefined();
  });

  it("reaches the throttling plugin of a webhook handler's client and of probot.auth's", async () => {
    const seen: Array<string | undefined> = [];
    // A plugin added after ours sees the options every plugin of the client was given.
    const Probe = CoordinatorOctokit.plugin((_octokit, options) => {
      seen.push((options as { throttle?: { id?: string } }).throttle?.id);
    });
    const probot = new Probot({ appId: TEST_APP_ID, privateKey: TEST_PRIVATE_KEY, Octokit: Probe });
    const handled = new Promise<void>((resolve) => probot.on('issues', () => resolve()));
    const payload = examplePayload<Record<string, unknown>>('issues', 'opened');
    await probot.receive({
      id: 'delivery-1',
      name: 'issues',
      payload: { ...payload, installation: { id: 777 } },
    } as never);
    await handled;
    await probot.auth(778);
    expect(seen).toContain('777');
    expect(seen).toContain('778');
    expect(seen).not.toContain('no-id');
  });
});
