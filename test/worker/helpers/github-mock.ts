import nock from 'nock';
import { afterEach, beforeEach, expect } from 'vitest';

export const API = 'https://api.github.com';
export const REPO = '/repos/acme/widgets';

/**
 * Strict GitHub: any request without a mock fails the test, and so does a mock nobody
 * called. Call once per test file.
 */
export function strictGitHub(): { unexpected: string[] } {
  const state = { unexpected: [] as string[] };
  const onNoMatch = (req: { method?: string; path?: string; href?: string }) => {
    state.unexpected.push(`${req.method} ${req.href ?? req.path}`);
  };
  beforeEach(() => {
    state.unexpected.length = 0;
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    nock.emitter.on('no match', onNoMatch);
  });
  afterEach(() => {
    nock.emitter.removeListener('no match', onNoMatch);
    const pending = nock.pendingMocks();
    nock.cleanAll();
    nock.enableNetConnect();
    expect(state.unexpected, 'unexpected GitHub requests').toEqual([]);
    expect(pending, 'GitHub mocks never called').toEqual([]);
  });
  return state;
}

export function pullFixture(number: number, branch: string, body: string) {
  return {
    number,
    html_url: `https://github.com/acme/widgets/pull/${number}`,
    body,
    head: { ref: branch, repo: { full_name: 'acme/widgets' } },
    // Opened by the publish job, with the App's installation token.
    user: { login: 'agent-coordinator[bot]', type: 'Bot' },
  };
}
