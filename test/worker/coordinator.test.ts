import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AssignmentError,
  httpCoordinator,
  WorkerCredentials,
} from '../../src/worker/coordinator.js';
import type { AssignmentResponse } from '../../src/protocol/assignment.js';

let server: Server | undefined;
afterEach(() => void server?.close());

/** One origin answering both the OIDC request and the assignment with fixed replies. */
async function serve(oidc: [number, unknown], assignment: [number, unknown]): Promise<string> {
  server = createServer((req, res) => {
    const [status, body] = req.url?.startsWith('/oidc') ? oidc : assignment;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closedPort(): Promise<string> {
  const s = createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as AddressInfo;
  s.close();
  await once(s, 'close');
  return `http://127.0.0.1:${port}`;
}

function client(url: string, oidcUrl = `${url}/oidc?api-version=2.0`) {
  const lines: string[] = [];
  const coordinator = httpCoordinator({
    env: { ACTIONS_ID_TOKEN_REQUEST_URL: oidcUrl, ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'bearer' },
    coordinatorUrl: url,
    request: { task_id: 'task_001', issue: '7', attempt: '1' },
    io: { out: (t) => void lines.push(t), err: (t) => void lines.push(t) },
    retryDelaysMs: [],
  });
  return { coordinator, lines };
}

const failure = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AssignmentError);
  return (error as Error).message;
};

describe('httpCoordinator', () => {
  it('says the coordinator is unreachable, with the cause', async () => {
    const url = await closedPort();
    const oidc = await serve([200, { value: 'jwt' }], [500, {}]);
    const { coordinator } = client(url, `${oidc}/oidc?api-version=2.0`);
    const message = await failure(coordinator.requestAssignment());
    expect(message).toBe(
      `could not reach the coordinator at ${url}/api/worker/assignment: fetch failed (ECONNREFUSED)`,
    );
  });

  it('says GitHub refused the OIDC token', async () => {
    const url = await serve([403, { message: 'no id-token permission' }], [200, {}]);
    const message = await failure(client(url).coordinator.requestAssignment());
    expect(message).toContain('GitHub refused the OIDC token (403)');
  });

  it('rejects an answer that is not an assignment, naming the fields', async () => {
    const url = await serve([200, { value: 'jwt' }], [200, { token: 'x', mode: 'deploy' }]);
    const message = await failure(client(url).coordinator.requestAssignment());
    expect(message).toMatch(/is not an assignment: .*expires_at.*mode/);
  });

  it('shows a refusal that is not JSON as text', async () => {
    const url = await serve([200, { value: 'jwt' }], [502, '<html>Bad gateway</html>']);
    const message = await failure(client(url).coordinator.requestAssignment());
    expect(message).toContain('(502 from');
    expect(message).toContain('<html>Bad gateway</html>');
  });
});

describe('WorkerCredentials', () => {
  const assignment = (token: string, inMinutes: number) =>
    ({
      token,
      expires_at: new Date(Date.now() + inMinutes * 60_000).toISOString(),
    }) as AssignmentResponse;

  it('keeps a token that outlives the margin and replaces one that does not', async () => {
    let next = assignment('second', 60);
    const credentials = new WorkerCredentials(
      { requestAssignment: async () => next },
      assignment('first', 30),
    );
    expect(await credentials.ensureFresh()).toBe(false);
    expect(credentials.token).toBe('first');
    expect(await credentials.ensureFresh(40 * 60_000)).toBe(true);
    expect(credentials.token).toBe('second');
    next = assignment('third', 60);
    expect(await credentials.ensureFresh()).toBe(false);
    expect(credentials.token).toBe('second');
  });
});
