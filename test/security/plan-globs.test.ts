import { describe, expect, it } from 'vitest';
import { parsePlanYaml } from '../../src/core/plan/index.js';
import {
  filesOutsideDeclaration,
  overlapPath,
  RepoTree,
  taskPaths,
} from '../../src/core/scheduler/index.js';

/**
 * A task's `files:` come from the plan, which a prompt-injected planner writes, and the
 * coordinator matches every claiming task's globs against every file of the base branch's tree
 * and of other tasks' PRs (an agent names those files) in its own process. Globs a backtracking
 * regular expression takes exponential time on must still be matched at once: each case below
 * took the regular expression from 0.5 to 6 seconds; at the 256 characters a glob may have, years.
 */
const HOSTILE: Array<{ glob: string; path: string }> = [
  // Each `**/` may end at any of the path's directories.
  { glob: `${'**/'.repeat(10)}x`, path: `${'a/'.repeat(24)}b` },
  // Each `*` may end at any character of the segment.
  { glob: `**/${'*?'.repeat(14)}#`, path: 'src/components/authentication-provider.tsx' },
  // Each brace's two alternatives match the same text.
  { glob: `${'{a,a}'.repeat(24)}x`, path: `${'a'.repeat(24)}b` },
];

describe("a plan's pathological files: globs", () => {
  it('are valid in a plan, and are matched against the tree and PR files at once', () => {
    const plan = parsePlanYaml(
      [
        '- id: hostile',
        '  title: Hostile',
        `  files: ${JSON.stringify(HOSTILE.map((h) => h.glob))}`,
        '- id: other',
        '  title: Other',
        '  files: [lib/**]',
      ].join('\n'),
      { maxTasks: 10 },
    );
    expect(plan.ok).toBe(true);
    const globs = HOSTILE.map((h) => h.glob);
    const paths = HOSTILE.map((h) => h.path);
    const started = performance.now();
    const hostile = taskPaths(
      { base: 'main', files: globs },
      new RepoTree({ paths: [...paths, 'lib/x.ts'], truncated: false }),
    )!;
    const other = taskPaths({ base: 'main', files: ['lib/**'], changedFiles: paths }, undefined)!;
    const overlap = overlapPath(hostile, other);
    const outside = filesOutsideDeclaration(globs, paths);
    const elapsed = performance.now() - started;
    expect(hostile.files).toEqual([]);
    expect(overlap).toBeUndefined();
    expect(outside).toEqual({ files: paths, unchecked: 0 });
    // A guard on the order of growth, not a speed measure (bench/ measures speed): the automaton
    // takes milliseconds, the regular expression seconds to years.
    expect(elapsed).toBeLessThan(2000);
  });
});
