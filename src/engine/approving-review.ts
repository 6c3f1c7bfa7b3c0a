import { WRITE_ROLES } from '../core/roles.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import { recordApproval } from './approval.js';
import { loadRunScope, type Engine } from './context.js';
import { advanceRun } from './merge/index.js';
import { recordedAgentPull, type PullEventInfo } from './track.js';

/**
 * An approving review from a write+ person approves the task for the reviewed commit, in
 * whatever phase its attempt is: the review may come (or be handled) before the worker's run
 * has completed, or before the PR's own opened delivery.
 */
export async function onApprovingReview(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  repositoryId: number,
  pull: PullEventInfo,
  review: { commitId: string; author: string; authorIsBot: boolean },
): Promise<void> {
  if (review.authorIsBot) return;
  const current = repo.owner && repo.repo ? await port.pull(repo, pull.number) : null;
  const linked = await recordedAgentPull(engine, repositoryId, {
    ...pull,
    currentHeadSha: current?.headSha,
  });
  if (!linked || linked.run.finishedAt) return;
  const role = await port.roleOf(repo, review.author);
  if (!WRITE_ROLES.has(role)) return;
  const task = (await engine.store.runs.taskById(linked.task.id)) ?? linked.task;
  const approved = await recordApproval(engine, task, {
    sha: review.commitId,
    currentHead: current?.headSha ?? pull.headSha,
  });
  if (approved) await advanceRun(engine, await loadRunScope(engine, linked.run, port));
}
