import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../worker/helpers/git-fixture.js';
import { strictGitHub } from '../worker/helpers/github-mock.js';
import { createHarness, type Harness } from '../worker/helpers/harness.js';

/**
 * A patch the agent job's snapshot would never produce (git refuses to stage these paths), as an
 * agent that writes the artifact itself hands it over: one running as the worker's own user can
 * (docs/worker.md, "The agent's user"). The publish job applies it in an index of its own, where
 * git checks each path as it would for a checkout (verify_path, and no path beyond a symbolic
 * link), so none of these reaches a tree, and nothing is pushed.
 */

const BRANCH = 'agent/7/task_001';

/** A unified diff that creates `path` (mode `mode`) holding `line`. */
function newFile(path: string, line: string, mode = '100644'): string {
  const last = mode === '120000' ? '\n\\ No newline at end of file' : '';
  return `diff --git a/${path} b/${path}\nnew file mode ${mode}\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+${line}${last}\n`;
}

strictGitHub();

describe('a forged patch the publish job applies', () => {
  let h: Harness;
  beforeEach(() => {
    h = createHarness(BRANCH);
  });
  afterEach(() => h.fx.cleanup());

  it.each([
    {
      what: 'a file beyond a link the same patch adds to a folder outside the checkout',
      patch: newFile('out', '/home/runner/work/_temp', '120000') + newFile('out/x.sh', 'x'),
      says: /beyond a symbolic link/,
    },
    { what: 'a path climbing out with ..', patch: newFile('../x.sh', 'x'), says: /invalid path/ },
    {
      what: '.gitmodules as a link (git follows it to read submodule URLs)',
      patch: newFile('.gitmodules', '/etc/passwd', '120000'),
      says: /invalid path/,
    },
    {
      what: '.git as NTFS reads its short name',
      patch: newFile('git~1/hooks/post-checkout', 'echo pwned'),
      says: /invalid path/,
    },
    {
      what: '.git as an NTFS stream of the folder',
      patch: newFile('.git::$INDEX_ALLOCATION/hooks/post-checkout', 'echo pwned'),
      says: /invalid path/,
    },
  ])(
    '$what: bad_result, nothing pushed',
    async ({ patch, says }) => {
      const before = h.fx.originRev(BRANCH);

      const result = await h.run({}, undefined, {
        // Next to the agent's real change, so that only the forged part can be refused.
        beforePublish: (dir) => appendFileSync(join(dir, 'change.patch'), patch),
      });

      expect(result.outcome).toMatchObject({ ok: false, reason: 'bad_result' });
      expect(result.outcome.ok || result.outcome.detail).toMatch(says);
      expect(h.fx.originRev(BRANCH)).toBe(before);
      expect(git(h.fx.origin, 'for-each-ref', '--format=%(refname)')).not.toMatch(/tags/);
      expect(nock.pendingMocks()).toEqual([]);
    },
    60_000,
  );
});
