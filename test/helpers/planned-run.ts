import { DEFAULT_CONFIG, type RepoConfig } from '../../src/config/schema.js';
import type { Plan, TaskSpec } from '../../src/core/plan/index.js';
import type { Store } from '../../src/store/index.js';
import type { RunRow } from '../../src/store/runs.js';

/** A plan task as the store tests write them: its title is its id. */
export function taskSpec(
  id: string,
  { deps = [], priority = 3 }: { deps?: string[]; priority?: number } = {},
): TaskSpec {
  return { id, title: id, type: 'default', deps, priority };
}

/** A plan of `specs`, in the order given (deps must come first). */
export function planOf(...specs: TaskSpec[]): Plan {
  return { tasks: specs, order: specs.map((s) => s.id) };
}

/**
 * A run of the repository's issue `issueNumber`, planned with `plan` and running, as a label
 * and an accepted plan leave it. Throws if the plan is not stored.
 */
export async function plannedRun(
  store: Store,
  repositoryId: number,
  issueNumber: number,
  plan: Plan,
  config: RepoConfig = DEFAULT_CONFIG,
): Promise<RunRow> {
  const { run } = await store.runs.createRun({
    repositoryId,
    issueNumber,
    config,
    startedBy: 'maintainer',
    issueTitle: `Issue ${issueNumber}`,
    issueBody: '',
  });
  if (!(await store.runs.setPlan(run.id, plan, 'issue', false)))
    throw new Error(`the plan of run ${run.id} was not stored`);
  return run;
}
