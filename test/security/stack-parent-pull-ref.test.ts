import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../worker/helpers/git-fixture.js';
import { createHarness } from '../worker/helpers/harness.js';
import {
  branchesOnDouble,
  CHILD,
  childRun,
  parentAndChild,
  PARENT,
  stackDouble,
  takeOut,
} from './stack-double.js';

/**
 * docs/stacking.md, "An attempt across the parent's merge": while the stack parent's branch is
 * the base, its head is the parent's work as it is now. The parent's PR (`refs/pull/<n>/head`)
 * can be behind that branch: GitHub updates the ref after the branch, and never for a closed PR.
 * A start that is the PR's head, older than the branch's (a review round of the parent took a
 * change out since), gets the branch's head merged in after it like any older start, so the
 * change stays out and the child's diff against the parent's branch is the child's own; a PR head
 * outside the branch's history (the branch force-pushed after its PR closed) is refused.
 */
describe("a start that is the stack parent's PR head, behind the parent's branch", () => {
  const openDouble = stackDouble();

  it.each([
    { mode: 'work', pull: 'behind the branch' },
    { mode: 'fix', pull: 'behind the branch' },
    { mode: 'work', pull: "outside the branch's history" },
  ] as const)(
    'a $mode attempt starting from the PR head $pull',
    async ({ mode, pull }) => {
      const { double, repo } = await openDouble();
      const h = createHarness(CHILD);
      await branchesOnDouble(double, repo);
      const first = parentAndChild(h, { 'a.txt': 'a\n' });
      // A fix's child holds work of its own; a work retry starts again from the parent.
      if (mode === 'fix') h.fx.commitOnOrigin(CHILD, { 'b.txt': 'b\n' }, 'task_002: B');
      const childHead = h.fx.originRev(CHILD);
      // The parent's head when the agent job starts, with a change its review takes out.
      const started = h.fx.commitOnOrigin(PARENT, { 'evil.txt': 'taken out\n' }, 'task_001: more');
      git(h.fx.origin, 'update-ref', 'refs/pull/5/head', started);

      let reviewed = '';
      const result = await h.run(
        {
          ...childRun(double),
          mode,
          attempt: '2',
          stack_parent_pr: '5',
        },
        h.fx.freshWorkspace(CHILD),
        {
          beforePublish: (dir) => {
            const found = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as {
              parents: string[];
            };
            expect(found.parents).toEqual(mode === 'fix' ? [childHead, started] : [started]);
            if (pull === 'behind the branch') {
              // The review takes the change out; GitHub has not moved the PR's ref yet.
              takeOut(h, 'evil.txt', 'task_001: review');
            } else {
              // The PR was closed, and the branch force-pushed: its ref stays where it was.
              git(h.fx.origin, 'update-ref', `refs/heads/${PARENT}`, first);
              h.fx.commitOnOrigin(PARENT, { 'a.txt': 'rewritten\n' }, 'task_001: rewritten');
            }
            reviewed = h.fx.originRev(PARENT);
            expect(git(h.fx.origin, 'rev-parse', 'refs/pull/5/head')).toBe(started);
          },
        },
      );

      if (pull === "outside the branch's history") {
        expect(result.outcome).toMatchObject({
          ok: false,
          reason: 'bad_result',
          detail: `a retry starts from a commit of ${PARENT}; the result names another commit`,
        });
        expect(h.fx.originRev(CHILD)).toBe(childHead);
        return;
      }
      expect(result.exitCode).toBe(0);
      const parentsOf = (commit: string) =>
        git(h.fx.origin, 'rev-list', '--parents', '-n1', commit).split(' ').slice(1);
      const [own, caughtUp] = parentsOf(CHILD);
      expect(caughtUp).toBe(reviewed);
      expect(parentsOf(own!)).toEqual(mode === 'fix' ? [childHead, started] : [started]);
      expect(git(h.fx.origin, 'log', '-1', '--format=%s', CHILD)).toBe(
        `Merge ${PARENT} into ${CHILD}`,
      );
      expect(git(h.fx.origin, 'ls-tree', '--name-only', CHILD)).not.toContain('evil.txt');
      // The child's PR against the parent's branch (three dots: from their merge base).
      expect(git(h.fx.origin, 'diff', '--name-only', `${PARENT}...${CHILD}`)).toBe(
        mode === 'fix' ? 'b.txt' : 'feature.txt',
      );
    },
    60_000,
  );
});
