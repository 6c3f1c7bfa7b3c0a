import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../worker/helpers/git-fixture.js';
import { API, pullFixture, REPO, strictGitHub } from '../worker/helpers/github-mock.js';
import { createHarness, type Harness } from '../worker/helpers/harness.js';
import { BRANCH, conflictMergeMessage, shown } from './publish-text.js';

/**
 * A commit the publish job pushes reaches the base branch when its PR merges (a squash commit
 * takes the PR's title and the commits' messages), and GitHub closes every issue a closing
 * keyword there names — another labelled issue too, which cancels its run. The task's title (the
 * issue's author's or the planner agent's words) and the conflicted files of a fix (the names an
 * earlier agent gave them, or a forged result's) go into those messages and the PR's title: they
 * must name no issue.
 */

/** GitHub's closing keywords before an issue reference: `#3`, `owner/repo#4`, `GH-5`, a URL. */
const CLOSING_REFERENCE =
  /\b(close[sd]?|fix(e[sd])?|resolve[sd]?):?\s+(#\d|[\w.-]+\/[\w.-]+#\d|GH-\d|https?:\/\/\S+\/issues\/\d)/i;
const REFERENCE = /#\d|GH-\d|:\/\//;

strictGitHub();

let h: Harness;
beforeEach(() => {
  h = createHarness(BRANCH);
});
afterEach(() => h.fx.cleanup());

describe('closing keywords in what the publish job writes', () => {
  it("a task's title names no issue in the commit message or the PR title", async () => {
    const title =
      'Fixes #3, closes acme/other#4, resolves GH-5 and fix: https://github.com/acme/widgets/issues/6';
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
    // `[#7]`, the PR's own issue, is the coordinator's reference, not the title's.
    expect(created!.title.startsWith('[#7] ')).toBe(true);
    const titled = created!.title.slice('[#7] '.length);
    for (const text of [message, titled]) {
      expect(text).not.toMatch(CLOSING_REFERENCE);
      expect(text).not.toMatch(REFERENCE);
    }
    expect(shown(message).startsWith(`task_001: ${title}\n`)).toBe(true);
    expect(shown(titled)).toBe(title);
  });

  it("a fix's conflicted file named like a closing keyword names no issue in the merge's message", async () => {
    const name = 'Fixes #3.txt';
    const message = await conflictMergeMessage(h, name);
    expect(message).not.toMatch(CLOSING_REFERENCE);
    expect(message).not.toMatch(REFERENCE);
  });
});
