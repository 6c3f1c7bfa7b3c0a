import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { git } from '../worker/helpers/git-fixture.js';
import { API, pullFixture, REPO, strictGitHub } from '../worker/helpers/github-mock.js';
import { createHarness, type Harness } from '../worker/helpers/harness.js';

const BRANCH = 'agent/7/task_001';
const SHARED = { 'shared.txt': 'line 1\nbranch line\nline 3\n' };
const MAIN_SHARED = { 'shared.txt': 'line 1\nmain line\nline 3\n' };

strictGitHub();

let h: Harness;
afterEach(() => h.fx.cleanup());

/**
 * docs/worker.md, "Three jobs": a `fix` merges the base into the task branch before the agent
 * starts, in the checkout of that branch as an earlier attempt's agent pushed it. Git reads
 * `.gitattributes` from the working tree it merges in: a prompt-injected agent commits
 * `merge=union` there (or a macro that sets it), and the base's change to the same line would be
 * merged as both sides' lines with no conflict, no agent to look at it, and nothing to stop the
 * publish job pushing it; a longer `conflict-marker-size` would hide markers the agent left
 * from the check for them. The merge must take none of the branch's attributes.
 */
describe("the fix's merge of the base and the branch's .gitattributes", () => {
  function branchWith(attributes: string): string {
    h = createHarness(BRANCH);
    git(h.fx.origin, 'config', 'receive.denyNonFastForwards', 'true');
    const head = h.fx.commitOnOrigin(
      BRANCH,
      { ...SHARED, '.gitattributes': attributes },
      'task_001: change the shared line',
    );
    h.fx.commitOnOrigin('main', MAIN_SHARED, 'main changes the same line');
    return head;
  }

  it.each([
    { name: 'merge=union for every path', attributes: '* merge=union\n' },
    { name: 'merge=union for the file', attributes: 'shared.txt merge=union\n' },
    { name: 'a macro setting merge=union', attributes: '[attr]keep merge=union\n* keep\n' },
  ])('$name: the conflict goes to the agent', async ({ attributes }) => {
    branchWith(attributes);
    nock(API)
      .get(`${REPO}/pulls`)
      .query({ head: `acme:${BRANCH}`, state: 'open', per_page: '100' })
      .reply(200, [pullFixture(12, BRANCH, '')]);
    nock(API)
      .patch(`${REPO}/pulls/12`)
      .reply(200, pullFixture(12, BRANCH, ''));

    const result = await h.run(
      {
        mode: 'fix',
        attempt: '2',
        FAKE_AGENT: 'resolve',
        FAKE_AGENT_LOOK: JSON.stringify(['.git/info/attributes']),
      },
      h.fx.freshWorkspace(BRANCH),
    );

    expect(result.log).toContain('merging main conflicts in: shared.txt');
    expect(h.record()?.stdin).toContain('conflicts in these files:\n- shared.txt\n');
    // The agent's git is its own business: the worker's override went with the merge.
    expect(h.record()?.seen).toEqual({ '.git/info/attributes': null });
    expect(result.outcome).toMatchObject({ ok: true });
    expect(git(h.fx.origin, 'show', `${BRANCH}:shared.txt`)).toBe('line 1\nresolved line\nline 3');
    // The branch's own file is the branch's to keep: only the merge ignored it.
    expect(git(h.fx.origin, 'show', `${BRANCH}:.gitattributes`)).toBe(attributes.trim());
  });

  it('conflict-marker-size: the markers the agent left are found', async () => {
    const head = branchWith('* conflict-marker-size=9\n');

    const result = await h.run(
      { mode: 'fix', attempt: '2', FAKE_AGENT: 'nothing', feedback: 'Address the review.' },
      h.fx.freshWorkspace(BRANCH),
    );

    expect(result.outcome).toMatchObject({
      ok: false,
      reason: 'agent_failed',
      detail: 'conflict markers left in: shared.txt',
    });
    expect(h.fx.originRev(BRANCH)).toBe(head);
  });
});
