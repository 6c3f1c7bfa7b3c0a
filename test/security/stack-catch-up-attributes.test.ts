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
 * docs/stacking.md, "An attempt across the parent's merge": the publish job merges the stack
 * parent's new head into the agent's commit; where the two conflict, a retry that started from an
 * older commit of the parent fails (`push_failed`) and a first attempt is pushed without the
 * merge. The publish job's checkout is the task branch as the parent's agent, or the child's
 * earlier attempt, pushed it, and git reads `.gitattributes` from the working tree of the
 * repository it merges in: a prompt-injected agent commits `merge=union` there. The merge must not
 * take it: the conflict is the publish job's to find, not a union of both sides' lines.
 */
describe("the catch-up merge and the checkout's .gitattributes", () => {
  const openDouble = stackDouble();

  it.each([
    { attempt: '2', attributes: undefined },
    { attempt: '2', attributes: '* merge=union\n' },
    { attempt: '2', attributes: 'feature.txt merge=union\n' },
    { attempt: '1', attributes: undefined },
    { attempt: '1', attributes: '* merge=union\n' },
  ])(
    "attempt $attempt, whose change conflicts with the parent's new head, .gitattributes $attributes",
    async ({ attempt, attributes }) => {
      const { double, repo } = await openDouble();
      const h = createHarness(CHILD);
      await branchesOnDouble(double, repo);
      parentAndChild(h, {
        'a.txt': 'a\n',
        ...(attributes && { '.gitattributes': attributes }),
      });
      // A retry's branch holds its earlier attempt; a first attempt's is the parent's head.
      if (attempt === '2') h.fx.commitOnOrigin(CHILD, { 'b.txt': 'b\n' }, 'task_002: B');
      const childHead = h.fx.originRev(CHILD);

      let moved = '';
      const result = await h.run(
        {
          ...childRun(double),
          attempt,
        },
        h.fx.freshWorkspace(CHILD),
        {
          // The parent's review round writes the file the child's agent writes too.
          beforePublish: () => {
            moved = h.fx.commitOnOrigin(PARENT, { 'feature.txt': 'the parent’s\n' }, 'review');
          },
        },
      );

      const conflict = `${PARENT} moved to ${moved} while the agent worked, and merging it conflicts with the agent's change: feature.txt`;
      if (attempt === '2') {
        expect(result.outcome).toMatchObject({
          ok: false,
          reason: 'push_failed',
          detail: conflict,
        });
        expect(h.fx.originRev(CHILD)).toBe(childHead);
        return;
      }
      expect(result.exitCode).toBe(0);
      expect(result.log).toContain(`${conflict}; pushed without it`);
      expect(git(h.fx.origin, 'rev-list', '--parents', '-n1', CHILD).split(' ').slice(1)).toEqual([
        childHead,
      ]);
    },
    60_000,
  );
});
