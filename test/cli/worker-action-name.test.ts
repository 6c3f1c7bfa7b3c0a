import { describe, expect, it } from 'vitest';
import {
  pinWorkerAction,
  projectRepository,
  readTemplate,
  WORKER_ACTION_MOVING_TAG,
  workerActionUses,
} from '../../src/cli/templates.js';

/**
 * The worker action is named by package.json's `repository`, the repository the App is built
 * and released from: `init` writes that name whatever the template says, and
 * `npm run build:action` writes it into the template (release.yml fails when it was not run).
 */
const template = await readTemplate('agent-worker.yml');
const uses = (text: string) =>
  [...text.matchAll(/uses: (\S+\/actions\/worker@.*)$/gm)].map((m) => m[1]);

describe("the worker action's name", () => {
  it('is the one package.json names, in the committed template (as npm run build:action writes it)', async () => {
    const project = await projectRepository();
    const built = workerActionUses(project, { tag: WORKER_ACTION_MOVING_TAG });
    expect(pinWorkerAction(template, built)).toBe(template);
    expect(uses(template)).toEqual([built, built, built]);
  });

  it("is replaced in each of the three jobs, whichever repository the template named: a fork's init pins its own", () => {
    const fork = { owner: 'octo-fork', repo: 'coordinator.next' };
    const pinned = workerActionUses(fork, { sha: 'f'.repeat(40), version: '1.2.3' });
    expect(pinned).toBe(`octo-fork/coordinator.next/actions/worker@${'f'.repeat(40)} # v1.2.3`);
    const forked = pinWorkerAction(template, pinned);
    expect(uses(forked)).toEqual([pinned, pinned, pinned]);
    // Nothing else changes, and pinning again (init --force) replaces the comment too.
    const again = workerActionUses(fork, { tag: 'v1' });
    expect(pinWorkerAction(forked, again)).toBe(pinWorkerAction(template, again));
    expect(forked.replaceAll(pinned, '').length).toBe(
      template.replaceAll(uses(template)[0]!, '').length,
    );
  });

  it('refuses a workflow that does not run the worker action', () => {
    expect(() => pinWorkerAction('jobs: {}\n', 'a/b/actions/worker@v0')).toThrow(
      'the workflow does not use an action at <owner>/<repo>/actions/worker',
    );
  });
});
