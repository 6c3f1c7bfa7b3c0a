import { Octokit } from '@octokit/rest';
import { pino } from 'pino';
import { Probot } from 'probot';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CoordinatorOctokit } from '../../src/github/coordinator-octokit.js';
import { parseJsonText } from '../../src/github/native-json.js';
import { TEST_APP_ID, TEST_PRIVATE_KEY } from '../helpers/app.js';
import { startApiStub } from '../helpers/api-stub.js';
import { examplePayload } from '../helpers/payloads.js';

const pullJson = JSON.stringify(
  examplePayload<{ pull_request: object }>('pull_request', 'opened').pull_request,
);
// 2^53 + 1: JSON.parse would round it to 2^53.
const bigJson = '{"id":9007199254740993,"name":"big"}';

const answers: Record<string, { status: number; type?: string; body: string }> = {
  '/pull': { status: 200, type: 'application/json; charset=utf-8', body: pullJson },
  '/big': { status: 200, type: 'application/json', body: bigJson },
  '/scim': { status: 200, type: 'application/scim+json', body: '{"a":[1,2]}' },
  '/broken': { status: 200, type: 'application/json', body: '{"a":' },
  '/text': { status: 200, type: 'text/plain', body: 'a log line\n' },
  '/raw': { status: 200, type: 'application/vnd.github.raw; charset=utf-8', body: 'name: x\n' },
  '/binary': { status: 200, type: 'application/octet-stream', body: 'PK\u0003\u0004' },
  '/untyped': { status: 200, body: 'no type' },
  '/empty': { status: 201, type: 'application/json', body: '' },
  '/none': { status: 204, body: '' },
  '/missing': {
    status: 404,
    type: 'application/json',
    body: '{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}',
  },
};

const silentLog = { debug() {}, info() {}, warn() {}, error() {} };

describe('successful answers parsed by JSON.parse, with Octokit’s results', () => {
  let stub: Awaited<ReturnType<typeof startApiStub>>;
  let baseUrl: string;
  beforeAll(async () => {
    stub = await startApiStub((req, res) => {
      const answer = answers[req.url ?? ''];
      if (!answer) throw new Error(`no answer for ${req.url}`);
      res.writeHead(answer.status, answer.type ? { 'content-type': answer.type } : {});
      res.end(answer.body);
    });
    baseUrl = stub.baseUrl;
  });
  afterAll(() => stub.close());

  const coordinatorOctokit = () =>
    new Probot({
      appId: TEST_APP_ID,
      privateKey: TEST_PRIVATE_KEY,
      log: pino({ level: 'silent' }),
      Octokit: CoordinatorOctokit,
      baseUrl,
    }).auth(5);

  /** What a call answers: its data, or the error's status and data. */
  async function outcome(octokit: { request: Octokit['request'] }, path: string) {
    try {
      const { status, data } = await octokit.request(`GET ${path}`);
      // toEqual does not compare the bytes of two ArrayBuffers.
      if (data instanceof ArrayBuffer) return { status, bytes: [...new Uint8Array(data)] };
      return { status, data: data as unknown };
    } catch (error) {
      const { status, response } = error as { status: number; response?: { data: unknown } };
      return { status, error: response?.data };
    }
  }

  it.each(Object.keys(answers))('%s: the same as Octokit’s own parse', async (path) => {
    const ours = await outcome(await coordinatorOctokit(), path);
    const octokits = await outcome(new Octokit({ baseUrl, log: silentLog }), path);
    expect(ours).toEqual(octokits);
  });

  it('keeps an integer past 2^53 exact, as a BigInt', async () => {
    const { data } = await (await coordinatorOctokit()).request('GET /big');
    expect(data).toEqual({ id: 9007199254740993n, name: 'big' });
  });

  it('parses a pull request with JSON.parse, once', async () => {
    const octokit = await coordinatorOctokit();
    const expected: unknown = JSON.parse(pullJson);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const { data } = await octokit.request('GET /pull');
      expect(data).toEqual(expected);
      // json-with-bigint keeps its own reference to JSON.parse and passes a reviver.
      expect(
        parse.mock.calls.filter((call) => call[0] === pullJson && call.length === 1),
      ).toHaveLength(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('hands the stream to a caller that asked for it', async () => {
    const octokit = await coordinatorOctokit();
    const { data } = await octokit.request('GET /text', {
      request: { parseSuccessResponseBody: false },
    });
    expect(data).toBeInstanceOf(ReadableStream);
    expect(await new Response(data as ReadableStream).text()).toBe('a log line\n');
  });

  it.each([
    ['no long digit run', '{"id":123,"sha":"0f1e2d"}', { id: 123, sha: '0f1e2d' }],
    ['2^53 − 1, safe', '{"n":9007199254740991}', { n: 9007199254740991 }],
    ['2^53 + 1', '{"n":9007199254740993}', { n: 9007199254740993n }],
    ['16 digits inside a string', '{"s":"1234567890123456"}', { s: '1234567890123456' }],
  ])('parseJsonText: %s', (_, text, expected) => {
    expect(parseJsonText(text)).toEqual(expected);
  });
});
