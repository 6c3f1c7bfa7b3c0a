import nock from 'nock';
import { expect } from 'vitest';
import { git } from '../worker/helpers/git-fixture.js';
import { API, pullFixture, REPO } from '../worker/helpers/github-mock.js';
import type { Harness } from '../worker/helpers/harness.js';

/** The task branch the publish-text tests publish to. */
export const BRANCH = 'agent/7/task_001';

/** The text as a person reads it: the word joiner is invisible. */
export const shown = (text: string) => text.replaceAll('\u2060', '');

/**
 * A fix whose merge of main conflicts in the file `name` (both sides add it), resolved by the
 * agent: the merge commit's message, which names the file, as the publish job pushed it.
 */
export async function conflictMergeMessage(h: Harness, name: string): Promise<string> {
  h.fx.commitOnOrigin(BRANCH, { [name]: 'line 1\nbranch line\nline 3\n' }, 'task_001: add');
  h.fx.commitOnOrigin('main', { [name]: 'line 1\nmain line\nline 3\n' }, 'main adds it too');
  nock(API)
    .get(`${REPO}/pulls`)
    .query({ head: `acme:${BRANCH}`, state: 'open', per_page: '100' })
    .reply(200, [pullFixture(12, BRANCH, 'Part of #7')]);
  nock(API)
    .patch(`${REPO}/pulls/12`)
    .reply(200, pullFixture(12, BRANCH, ''));
  const result = await h.run(
    { mode: 'fix', attempt: '2', FAKE_AGENT: 'resolve' },
    h.fx.freshWorkspace(BRANCH),
  );
  expect(result.outcome).toMatchObject({ ok: true });
  const message = git(h.fx.origin, 'log', '-1', '--format=%B', BRANCH);
  expect(shown(message)).toContain(`Conflicts resolved by the agent: ${name}\n`);
  return message;
}
