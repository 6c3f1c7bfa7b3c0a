import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../worker/helpers/git-fixture.js';
import { createHarness } from '../worker/helpers/harness.js';
import {
  CHILD,
  childRun,
  parentAndChild,
  PARENT,
  rewrittenFrom,
  stackDouble,
  takeOut,
} from './stack-double.js';

/**
 * docs/stacking.md, "An attempt across the parent's merge": the publish job accepts a retry's
 * start from the stack parent's PR (`refs/pull/<n>/head`) once a squash merge left its commits
 * off the base. A prompt-injected agent names an older commit of that PR, one from before the
 * parent's review had a change taken out, whether the child's branch already holds that commit
 * or not: on its own, the child would bring the change back as a commit of the parent's, and the
 * child's diff would not show it. The publish job merges the PR's head in after such a start, so
 * the change stays out and the child's diff against the parent's head is the agent's file alone;
 * a commit that is not in the parent's history (a rewritten one) is refused.
 */
describe("a retry's start from the stack parent's PR", () => {
  const openDouble = stackDouble();

  it.each([
    { start: "the head of the parent's PR", forge: undefined },
    { start: 'an older commit the review had taken out', forge: 'reviewed' },
    { start: 'an older commit the child does not hold', forge: 'unheld' },
    { start: "a commit outside the parent's history", forge: 'rewritten' },
  ] as const)(
    'a retry naming $start',
    async ({ forge }) => {
      const { double, repo } = await openDouble();
      const h = createHarness(CHILD);
      // The double keeps its own branches: the child's PR opens on the one it has.
      await double.pushCommit(repo, CHILD, {
        message: 'b',
        files: { 'b.txt': 'b' },
        by: 'agent-bot',
      });
      // The parent's first head held a change its review took out; the child was restacked since.
      const reviewed = parentAndChild(h, { 'evil.txt': 'taken out\n' });
      const parentHead = takeOut(h, 'evil.txt', 'task_001: review');
      git(h.fx.origin, 'update-ref', 'refs/pull/5/head', parentHead);
      git(h.fx.origin, 'update-ref', `refs/heads/${CHILD}`, parentHead);
      h.fx.commitOnOrigin(CHILD, { 'b.txt': 'b\n' }, 'task_002: B');
      const childHead = h.fx.originRev(CHILD);
      // The parent's review went on after the child's restack: another change taken out.
      const unheld = h.fx.commitOnOrigin(PARENT, { 'evil.txt': 'again\n' }, 'task_001: more');
      const pullHead = takeOut(h, 'evil.txt', 'task_001: review 2');
      git(h.fx.origin, 'update-ref', 'refs/pull/5/head', pullHead);
      const rewritten = rewrittenFrom(h, reviewed);

      const result = await h.run(
        {
          ...childRun(double),
          attempt: '2',
          stack_parent_pr: '5',
        },
        h.fx.freshWorkspace(CHILD),
        {
          beforePublish: (dir) => {
            // The parent squash-merged while the agent worked: branch deleted, a commit on main.
            git(h.fx.origin, 'update-ref', '-d', `refs/heads/${PARENT}`);
            h.fx.commitOnOrigin('main', { 'a.txt': 'a\n' }, 'task_001: A (#5)');
            const file = join(dir, 'result.json');
            const forged = JSON.parse(readFileSync(file, 'utf8')) as { parents: string[] };
            const from = forge ? [{ reviewed, unheld, rewritten }[forge]] : forged.parents;
            writeFileSync(file, JSON.stringify({ ...forged, parents: from }));
          },
        },
      );

      const parentsOf = (commit: string) =>
        git(h.fx.origin, 'rev-list', '--parents', '-n1', commit).split(' ').slice(1);
      if (!forge) {
        expect(result.exitCode).toBe(0);
        expect(parentsOf(CHILD)).toEqual([pullHead]);
        return;
      }
      if (forge !== 'rewritten') {
        expect(result.exitCode).toBe(0);
        const [own, merged] = parentsOf(CHILD);
        expect(merged).toBe(pullHead);
        expect(parentsOf(own!)).toEqual([{ reviewed, unheld }[forge]]);
        expect(git(h.fx.origin, 'log', '-1', '--format=%s', CHILD)).toBe(`Merge #5 into ${CHILD}`);
        expect(git(h.fx.origin, 'ls-tree', '--name-only', CHILD)).not.toContain('evil.txt');
        expect(git(h.fx.origin, 'diff', '--name-only', pullHead, CHILD)).toBe('feature.txt');
        return;
      }
      expect(result.outcome).toMatchObject({
        ok: false,
        reason: 'bad_result',
        detail: 'a retry starts from main or a commit of #5; the result names another commit',
      });
      expect(h.fx.originRev(CHILD)).toBe(childHead);
    },
    60_000,
  );
});
