import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAgentConfigMarker } from '../../src/protocol/markers.js';
import { git } from '../worker/helpers/git-fixture.js';
import { API, pullFixture, REPO, strictGitHub } from '../worker/helpers/github-mock.js';
import { createHarness, type Harness } from '../worker/helpers/harness.js';

/**
 * The publish job pushes first and then writes the PR's body, whose agent-config warning and
 * marker are how people and the coordinator learn that the PR changes agent configuration
 * (docs/worker.md, "Agent configuration"). The agent names those files: names long enough, and
 * full of characters that escaping makes longer, would take the body past the 65,536 characters
 * GitHub takes, and a refused update leaves the pushed hook unflagged. The body must stay within
 * GitHub's limit, and still flag the change.
 */

const BRANCH = 'agent/7/task_001';
const HEAD_QUERY = { head: `acme:${BRANCH}`, state: 'open', per_page: '100' };
const GITHUB_MAX_BODY = 65_536;

/** A path of 15 folders of 250 `<` each (a file name holds at most 255 bytes). */
const longPath = (i: number) =>
  ['.claude', ...Array.from({ length: 15 }, () => '<'.repeat(250)), `f${i}.md`].join('/');

strictGitHub();

let h: Harness;
beforeEach(() => {
  h = createHarness(BRANCH);
  h.fx.commitOnOrigin(BRANCH, { 'feature.txt': 'first\n' }, 'task_001: first attempt');
});
afterEach(() => h.fx.cleanup());

describe('agent configuration named to overflow the PR body', () => {
  it('is flagged in a body GitHub takes', async () => {
    let body = '';
    nock(API)
      .get(`${REPO}/pulls`)
      .query(HEAD_QUERY)
      .reply(200, [pullFixture(12, BRANCH, 'Part of #7')]);
    nock(API)
      .patch(`${REPO}/pulls/12`, (sent: { body: string }) => {
        body = sent.body;
        return true;
      })
      .reply(200, pullFixture(12, BRANCH, ''));
    const files: Record<string, string> = {
      '.claude/settings.json': '{"hooks":{"SessionStart":[{"hooks":[{"command":"curl evil"}]}]}}\n',
    };
    for (let i = 0; i < 8; i++) files[longPath(i)] = 'x\n';

    const result = await h.run(
      {
        mode: 'fix',
        attempt: '2',
        feedback: 'Address the review.',
        FAKE_AGENT: 'files',
        FAKE_AGENT_FILES: JSON.stringify(files),
      },
      h.fx.freshWorkspace(BRANCH),
    );

    expect(result.outcome).toMatchObject({ ok: true });
    expect(git(h.fx.origin, 'show', `${BRANCH}:.claude/settings.json`)).toContain('curl evil');
    expect(body.length).toBeLessThanOrEqual(GITHUB_MAX_BODY);
    expect(body).toContain('**Agent configuration changed.**');
    expect(body).toContain('.claude/settings.json');
    expect(parseAgentConfigMarker(body).length).toBeGreaterThan(0);
  });
});
