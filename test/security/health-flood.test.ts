import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestCoordinator, type TestCoordinator } from '../helpers/app.js';

/**
 * `GET /healthz` is unauthenticated and asks the database: many at once must not each put a
 * statement in the pool the handlers wait on (src/http/server.ts).
 */
describe('health checks from anyone', () => {
  let app: TestCoordinator | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await app?.close();
    app = undefined;
  });

  it('answers many at once with one database ping', async () => {
    app = await startTestCoordinator();
    const requests = 200;
    // The ping is held until every request has reached the server, so they all overlap it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const handle = app.store.handle;
    const ping = handle.ping.bind(handle);
    const pings = vi.spyOn(handle, 'ping').mockImplementation(async () => {
      await held;
      await ping();
    });
    let arrived = 0;
    app.server.on('request', () => {
      if (++arrived === requests) release();
    });

    const answers = await Promise.all(
      Array.from({ length: requests }, () => fetch(`${app!.url}/healthz`)),
    );

    expect(answers.map((answer) => answer.status)).toEqual(Array(requests).fill(200));
    expect(await answers[0]!.json()).toEqual({ status: 'ok', database: 'ok' });
    expect(pings).toHaveBeenCalledTimes(1);
  });
});
