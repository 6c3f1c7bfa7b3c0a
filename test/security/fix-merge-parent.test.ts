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
 * docs/worker.md, "What the publish job checks": a `fix` of a stacked child merges in the head
 * of its parent's work (its branch, or its PR once squash-merged), which the branch does not hold
 * yet. A prompt-injected agent names another second parent: a commit the branch already holds
 * (refused: GitHub's view of the merge commit hides the lines that match it), or an older commit
 * of the parent's PR, one with a change the parent's review took out since. On its own, the
 * child's diff against the parent's branch (their merge base then that older commit) would not
 * show the change coming back; the publish job merges the parent's head in after it, so the
 * change stays out and that diff is the child's own files.
 */
describe("a fix's merged parent", () => {
  const openDouble = stackDouble();

  it.each([
    { merges: "the parent's head", parentMerged: false },
    { merges: "the parent's head", parentMerged: true },
    { merges: 'a commit the branch holds', parentMerged: false },
    { merges: 'a commit the branch holds', parentMerged: true },
    { merges: "an older commit of the parent's PR", parentMerged: false },
    { merges: "an older commit of the parent's PR", parentMerged: true },
    { merges: "a commit outside the parent's history", parentMerged: false },
    { merges: "a commit outside the parent's history", parentMerged: true },
  ])(
    'a fix merging $merges (parent squash-merged before the publish job: $parentMerged)',
    async ({ merges, parentMerged }) => {
      const { double, repo } = await openDouble();
      const h = createHarness(CHILD);
      // The double keeps its own branches: the child's PR opens on the one it has.
      await double.pushCommit(repo, CHILD, {
        message: 'b',
        files: { 'b.txt': 'b' },
        by: 'agent-bot',
      });
      await double.pushCommit(repo, PARENT, {
        message: 'a',
        files: { 'a.txt': 'a' },
        by: 'agent-bot',
      });
      // The child started from the parent's first head; the parent then had a change taken out.
      const held = parentAndChild(h, { 'a.txt': 'a\n' });
      const childHead = h.fx.commitOnOrigin(CHILD, { 'b.txt': 'b\n' }, 'task_002: B');
      const older = h.fx.commitOnOrigin(PARENT, { 'evil.txt': 'taken out\n' }, 'task_001: more');
      const parentHead = takeOut(h, 'evil.txt', 'task_001: review');
      git(h.fx.origin, 'update-ref', 'refs/pull/5/head', parentHead);
      const rewritten = rewrittenFrom(h, older);

      const forged = {
        'a commit the branch holds': held,
        "an older commit of the parent's PR": older,
        "a commit outside the parent's history": rewritten,
      }[merges];
      const result = await h.run(
        {
          ...childRun(double),
          mode: 'fix',
          attempt: '2',
          stack_parent_pr: '5',
        },
        h.fx.freshWorkspace(CHILD),
        {
          beforePublish: (dir) => {
            if (parentMerged) {
              git(h.fx.origin, 'update-ref', '-d', `refs/heads/${PARENT}`);
              h.fx.commitOnOrigin('main', { 'a.txt': 'a\n' }, 'task_001: A (#5)');
            }
            const file = join(dir, 'result.json');
            const found = JSON.parse(readFileSync(file, 'utf8')) as { parents: string[] };
            // The agent job merged the parent's head, as a fix does.
            expect(found.parents).toEqual([childHead, parentHead]);
            if (forged)
              writeFileSync(file, JSON.stringify({ ...found, parents: [childHead, forged] }));
          },
        },
      );

      const parentsOf = (commit: string) =>
        git(h.fx.origin, 'rev-list', '--parents', '-n1', commit).split(' ').slice(1);
      const mergedName = parentMerged ? '#5' : PARENT;
      if (forged === older) {
        expect(result.exitCode).toBe(0);
        const [fix, caughtUp] = parentsOf(CHILD);
        expect(caughtUp).toBe(parentHead);
        expect(parentsOf(fix!)).toEqual([childHead, older]);
        expect(git(h.fx.origin, 'log', '-1', '--format=%s', CHILD)).toBe(
          `Merge ${mergedName} into ${CHILD}`,
        );
        expect(git(h.fx.origin, 'ls-tree', '--name-only', CHILD)).not.toContain('evil.txt');
        // The agent merged and changed nothing more: the child's own file is all its diff shows.
        expect(git(h.fx.origin, 'diff', '--name-only', parentHead, CHILD)).toBe('b.txt');
        return;
      }
      if (!forged) {
        expect(result.exitCode).toBe(0);
        expect(git(h.fx.origin, 'rev-list', '--parents', '-n1', CHILD).split(' ').slice(1)).toEqual(
          [childHead, parentHead],
        );
        expect(git(h.fx.origin, 'log', '-1', '--format=%s', CHILD)).toBe(
          `Merge ${mergedName} into ${CHILD}`,
        );
        return;
      }
      const from = parentMerged ? 'main or a commit of #5' : `a commit of ${PARENT}`;
      expect(result.outcome).toMatchObject({
        ok: false,
        reason: 'bad_result',
        detail:
          forged === held
            ? `a fix merges only what ${CHILD} does not hold; it holds ${held}`
            : `a fix merges ${from}; the result names another commit`,
      });
      expect(h.fx.originRev(CHILD)).toBe(childHead);
    },
    60_000,
  );
});
