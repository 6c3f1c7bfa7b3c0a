import type { GitHubPort, RepoCoords } from '../../github/port.js';
import {
  decideMergeGroup,
  mergeGroupMembers,
  mergeGroupPullToRead,
  ORDER_CHECK_NAME,
  type MergeGroupRun,
  type QueuedAgentPull,
} from '../../core/merge/index.js';
import type { PullRow } from '../../store/pulls.js';
import type { RunRow, TaskRow } from '../../store/runs.js';
import type { Engine } from '../context.js';

export interface MergeGroupEvent {
  repositoryId: number;
  repo: RepoCoords;
  /** `gh-readonly-queue/<base>/pr-<n>-<sha>`: the queue up to and including PR n. */
  headRef: string;
  headSha: string;
}

/**
 * GitHub asks for the checks of a merge group: read the queued agent PRs (and the PR the group
 * names, when it is not among them) and their runs' tasks, let core judge the order
 * (`decideMergeGroup`), and report it as the order check on the group's head.
 */
export async function judgeMergeGroup(
  engine: Engine,
  port: GitHubPort,
  group: MergeGroupEvent,
): Promise<void> {
  const { repositoryId } = group;
  const queued = (await engine.store.pulls.queued(repositoryId)).map(agentPull);
  const toRead = mergeGroupPullToRead(queued, group.headRef);
  const named =
    toRead === undefined ? undefined : await engine.store.pulls.withTask(repositoryId, toRead);
  const members = mergeGroupMembers(queued, group.headRef, named && agentPull(named));
  const runs = new Map<string, MergeGroupRun>();
  for (const runKey of new Set(members.flatMap((m) => (m.runKey ? [m.runKey] : [])))) {
    const { tasks, depsOf } = await engine.store.runs.graphOf(Number(runKey));
    runs.set(runKey, {
      tasks: tasks.map((t) => ({
        taskId: t.taskKey,
        deps: depsOf.get(t.taskKey) ?? [],
        state: t.state,
        prNumber: t.prNumber ?? undefined,
      })),
    });
  }
  for (const effect of decideMergeGroup({ members, runs })) {
    await port.createCheckRun(group.repo, group.headSha, ORDER_CHECK_NAME, {
      status: 'completed',
      conclusion: effect.conclusion,
      title: effect.title,
      summary: effect.summary,
    });
    engine.log.info(
      { group: group.headRef, conclusion: effect.conclusion },
      'merge group order checked',
    );
  }
}

function agentPull(found: { pull: PullRow; task: TaskRow; run: RunRow }): QueuedAgentPull {
  return { number: found.pull.number, taskId: found.task.taskKey, runKey: String(found.run.id) };
}
