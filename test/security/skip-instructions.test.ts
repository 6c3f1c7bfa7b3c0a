import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../worker/helpers/git-fixture.js';
import { API, pullFixture, REPO, strictGitHub } from '../worker/helpers/github-mock.js';
import { createHarness, type Harness } from '../worker/helpers/harness.js';
import { BRANCH, conflictMergeMessage, shown } from './publish-text.js';

/**
 * GitHub starts no `push` or `pull_request` workflow for a push whose commit message, or a PR
 * whose head commit's message, holds `[skip ci]`, `[ci skip]`, `[no ci]`, `[skip actions]` or
 * `[actions skip]` (docs.github.com, "Skipping workflow runs"), and a squash merge puts the PR's
 * title on the base. The task's title (the author's or the planner agent's words) and a
 * fix's conflicted file names (an earlier agent's, or a forged result's) go into those: they
 * must not keep the agent's change from the repository's CI, where no check counts as green.
 */

const SKIP = /\[\s*(skip\s+ci|ci\s+skip|no\s+ci|skip\s+actions|actions\s+skip)\s*\]/i;

strictGitHub();

let h: Harness;
beforeEach(() => {
  h = createHarness(BRANCH);
});
afterEach(() => h.fx.cleanup());

describe('skip instructions in what the publish job writes', () => {
  it("a task's title skips no workflow through the commit message or the PR title", async () => {
    const title = 'Tidy up [skip ci] [CI Skip] [no ci] [skip actions] [actions skip]';
    let created: { title: string } | undefined;
    nock(API)
      .post(`${REPO}/pulls`, (body: { title: string }) => {
        created = body;
        return true;
      })
      .reply(201, pullFixture(12, BRANCH, ''));

    const result = await h.run({ title });

    expect(result.outcome).toMatchObject({ ok: true });
    const message = git(h.fx.origin, 'log', '-1', '--format=%B', BRANCH);
    expect(message).not.toMatch(SKIP);
    expect(created!.title).not.toMatch(SKIP);
    expect(shown(message).startsWith(`task_001: ${title}\n`)).toBe(true);
    expect(shown(created!.title)).toBe(`[#7] ${title}`);
  });

  it("a fix's conflicted file named like a skip instruction skips no workflow", async () => {
    const name = '[skip ci].txt';
    const message = await conflictMergeMessage(h, name);
    expect(message).not.toMatch(SKIP);
  });
});
