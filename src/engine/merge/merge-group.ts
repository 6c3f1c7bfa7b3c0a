import type { GitHubPort, RepoCoords } from '../../github/port.js';
import {
  checkMergeGroup,
  ORDER_CHECK_NAME,
  type MergeGroupPull,
  type MergeGroupRun,
} from '../../core/merge/index.js';
import type { Engine } from '../context.js';

export interface MergeGroupEvent {
  repositoryId: number;
  repo: RepoCoords;
  /** `gh-readonly-queue/<base>/pr-<n>-<sha>`: the queue up to and including PR n. */
  headRef: string;
  headSha: string;
}

/**
 * GitHub asks for the checks of a merge group: the order check says whether every agent PR in
 * it lands after its dependencies (core's checkMergeGroup), on the group's head.
 */
export async function judgeMergeGroup(
  engine: Engine,
  port: GitHubPort,
  group: MergeGroupEvent,
): Promise<void> {
  const { repositoryId } = group;
  const lastPr = /\/pr-(\d+)-/.exec(group.headRef)?.[1];
  let queued = await engine.store.pulls.queued(repositoryId);
  // The group can be handled before our record of the enqueue that made it (the sweep
  // enqueues outside any delivery): an agent PR we do not know as queued is still judged,
  // as the queue's last entry, never waved through as someone else's PR.
  if (lastPr !== undefined && !queued.some((q) => q.pull.number === Number(lastPr))) {
    const agentPull = await engine.store.pulls.withTask(repositoryId, Number(lastPr));
    if (agentPull) queued = [...queued, agentPull];
  }
  // The group is the queue up to and including the PR its ref names (GitHub groups cumulatively).
  const cut = lastPr === undefined ? -1 : queued.findIndex((q) => q.pull.number === Number(lastPr));
  const members =
    cut >= 0 ? queued.slice(0, cut + 1) : queued.filter((q) => q.pull.number === Number(lastPr));
  const pulls: MergeGroupPull[] = members.map((m) => ({
    number: m.pull.number,
    taskId: m.task.taskKey,
    runKey: String(m.run.id),
  }));
  if (lastPr !== undefined && !members.some((m) => m.pull.number === Number(lastPr)))
    pulls.push({ number: Number(lastPr) });
  const runs = new Map<string, MergeGroupRun>();
  for (const run of new Map(members.map((m) => [m.run.id, m.run])).values()) {
    const { tasks, depsOf } = await engine.store.runs.graphOf(run.id);
    runs.set(String(run.id), {
      tasks: tasks.map((t) => ({
        taskId: t.taskKey,
        deps: depsOf.get(t.taskKey) ?? [],
        state: t.state,
        prNumber: t.prNumber ?? undefined,
      })),
    });
  }
  const verdict = checkMergeGroup(pulls, runs);
  await port.createCheckRun(group.repo, group.headSha, ORDER_CHECK_NAME, {
    status: 'completed',
    conclusion: verdict.ok ? 'success' : 'failure',
    title: verdict.ok ? 'dependency order holds' : 'out of dependency order',
    summary: verdict.ok
      ? 'Every agent PR in this merge group lands after its dependencies.'
      : verdict.reason,
  });
  engine.log.info({ group: group.headRef, ok: verdict.ok }, 'merge group order checked');
}
