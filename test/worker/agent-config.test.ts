import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAgentConfigMarker } from '../../src/protocol/markers.js';
import { git } from './helpers/git-fixture.js';
import { API, pullFixture, REPO, strictGitHub } from './helpers/github-mock.js';
import { createHarness, type Harness } from './helpers/harness.js';

/**
 * Agent configuration an earlier attempt committed, in any folder and however cased, does not
 * configure the next agent: the agent job restores it from the base before the agent starts
 * (docs/worker.md, "Agent configuration"), and the restore is not part of the change.
 */

const BRANCH = 'agent/7/task_001';
const HEAD_QUERY = { head: `acme:${BRANCH}`, state: 'open', per_page: '100' };

const BASE = {
  'CLAUDE.md': 'base memory\n',
  'sub/CLAUDE.md': 'base sub memory\n',
};
// What an earlier attempt committed on the branch.
const EARLIER = {
  'sub/CLAUDE.md': 'branch sub memory\n',
  'sub/.claude/commands/deploy.md': 'Push to main.\n',
  'CLAUDE.MD': 'case variant\n',
  '.cursor/rules/x.mdc': 'cursor rule\n',
  '.github/copilot-instructions.md': 'copilot\n',
  'lib/AGENTS.md': 'agents\n',
};

strictGitHub();

let h: Harness;
beforeEach(() => {
  h = createHarness(BRANCH);
  h.fx.commitOnOrigin('main', BASE, 'base configuration');
  git(h.fx.human, 'push', '--quiet', '--force', 'origin', `main:refs/heads/${BRANCH}`);
  h.fx.commitOnOrigin(BRANCH, EARLIER, 'task_001: earlier attempt');
});
afterEach(() => h.fx.cleanup());

describe('agent configuration restored from the base', () => {
  it('covers nested and case-variant files; the agent sees the base, the branch keeps its own', async () => {
    let body = '';
    nock(API)
      .get(`${REPO}/pulls`)
      .query(HEAD_QUERY)
      .reply(200, [pullFixture(12, BRANCH, '')]);
    nock(API)
      .patch(`${REPO}/pulls/12`, (sent: { body: string }) => {
        body = sent.body;
        return true;
      })
      .reply(200, pullFixture(12, BRANCH, ''));
    const workspace = h.fx.freshWorkspace(BRANCH);

    const result = await h.run(
      {
        mode: 'fix',
        attempt: '2',
        feedback: 'Add the feature.',
        FAKE_AGENT: 'files',
        // The agent edits one configuration file itself: that edit is its change.
        FAKE_AGENT_FILES: JSON.stringify({ 'feature.txt': 'x\n', 'lib/AGENTS.md': 'edited\n' }),
        FAKE_AGENT_LOOK: JSON.stringify([...Object.keys(BASE), ...Object.keys(EARLIER)]),
      },
      workspace,
    );

    expect(result.outcome).toMatchObject({ ok: true });
    expect(h.record()!.seen).toEqual({
      'CLAUDE.md': 'base memory\n',
      'sub/CLAUDE.md': 'base sub memory\n',
      'sub/.claude/commands/deploy.md': null,
      'CLAUDE.MD': null,
      '.cursor/rules/x.mdc': null,
      '.github/copilot-instructions.md': null,
      'lib/AGENTS.md': null,
    });
    const show = (path: string) => git(h.fx.origin, 'show', `${BRANCH}:${path}`);
    expect(show('sub/CLAUDE.md')).toBe('branch sub memory');
    expect(show('sub/.claude/commands/deploy.md')).toBe('Push to main.');
    expect(show('CLAUDE.MD')).toBe('case variant');
    expect(show('lib/AGENTS.md')).toBe('edited');
    expect(show('feature.txt')).toBe('x');
    expect(git(h.fx.origin, 'diff', '--name-only', `${BRANCH}^`, BRANCH).split('\n')).toEqual([
      'feature.txt',
      'lib/AGENTS.md',
    ]);
    expect(parseAgentConfigMarker(body)?.sort()).toEqual([
      '.cursor/rules/x.mdc',
      '.github/copilot-instructions.md',
      'CLAUDE.MD',
      'lib/AGENTS.md',
      'sub/.claude/commands/deploy.md',
      'sub/CLAUDE.md',
    ]);
  });
});
