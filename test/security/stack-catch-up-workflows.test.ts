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
} from './stack-double.js';

/**
 * docs/worker.md, "What the publish job checks": a change under `.github/workflows/` is refused
 * whole and named (`workflow_files_changed`), since GitHub refuses the push of any new commit that
 * changes one against its first parent when the token may not write workflows, and says less. The
 * catch-up merge after an older start of the stack parent's work (docs/stacking.md) is such a
 * commit: its first parent is the agent's, so whatever the parent's head changed under
 * `.github/workflows/` since that start is a change of it. The publish job names the files, and
 * pushes nothing; the merge of a parent's head that changed other files is pushed. A first
 * attempt, which may be pushed without the merge, is pushed on its own commit.
 */
describe("the catch-up merge of the stack parent's head", () => {
  const openDouble = stackDouble();

  it.each([
    { attempt: '2', parentChanges: '.github/workflows/ci.yml', published: false },
    { attempt: '2', parentChanges: '.GitHub/Workflows/ci.yml', published: false },
    { attempt: '2', parentChanges: '.github/ci.yml', published: true },
    { attempt: '1', parentChanges: '.github/workflows/ci.yml', published: true },
  ])(
    "attempt $attempt, whose parent's head changed $parentChanges while its agent worked",
    async ({ attempt, parentChanges, published }) => {
      const { double, repo } = await openDouble();
      const h = createHarness(CHILD);
      await branchesOnDouble(double, repo);
      const started = parentAndChild(h, { 'a.txt': 'a\n' });

      let moved = '';
      const result = await h.run(
        {
          ...childRun(double),
          attempt,
        },
        h.fx.freshWorkspace(CHILD),
        {
          // A person who may write workflows pushes to the parent's branch.
          beforePublish: () => {
            moved = h.fx.commitOnOrigin(PARENT, { [parentChanges]: 'on: push\n' }, 'ci');
          },
        },
      );

      if (!published) {
        expect(result.outcome).toMatchObject({
          ok: false,
          reason: 'workflow_files_changed',
          detail: `${PARENT} moved to ${moved} while the agent worked, and merging it changes files under .github/workflows/, which the worker's token may not push: ${parentChanges}`,
        });
        expect(h.fx.originRev(CHILD)).toBe(started);
        return;
      }
      expect(result.exitCode).toBe(0);
      const parentsOf = (commit: string) =>
        git(h.fx.origin, 'rev-list', '--parents', '-n1', commit).split(' ').slice(1);
      if (attempt === '1') {
        expect(result.log).toContain(`${parentChanges}; pushed without it`);
        expect(parentsOf(CHILD)).toEqual([started]);
        return;
      }
      const [own, caughtUp] = parentsOf(CHILD);
      expect(caughtUp).toBe(moved);
      expect(git(h.fx.origin, 'diff', '--name-only', own!, CHILD)).toBe(parentChanges);
    },
    60_000,
  );
});
