import type { RepoConfig } from '../../config/schema.js';
import type { GitHubPort, RepoCoords } from '../../github/port.js';
import {
  decideMergeGroup,
  mergeGroupApproversToRead,
  mergeGroupLastPr,
  mergeGroupMembers,
  mergeGroupNumbers,
  ORDER_CHECK_NAME,
  type ApproverStanding,
  type MergeGroupEffect,
  type MergeGroupPull,
  type MergeGroupRun,
  type QueuedAgentPull,
} from '../../core/merge/index.js';
import type { PullRow } from '../../store/pulls.js';
import type { RunRow, TaskRow } from '../../store/runs.js';
import type { Engine } from '../context.js';
import { clearApproval } from '../approval.js';
import { approverStanding } from './approvers.js';

export interface MergeGroupEvent {
  repositoryId: number;
  repo: RepoCoords;
  /** `gh-readonly-queue/<base>/pr-<n>-<sha>`: the queue up to and including PR n. */
  headRef: string;
  headSha: string;
  /** The branch the group merges into, as the delivery's `base_ref` names it. */
  baseRef: string;
}

/**
 * GitHub asks for the checks of a merge group: read GitHub's queue (who enqueued a PR is no
 * matter), the agent PRs among the group's and their runs' tasks and, from GitHub, each agent
 * PR's head, let core judge the order and the approvals (`decideMergeGroup`), and report it as
 * the order check on the group's head.
 */
export async function judgeMergeGroup(
  engine: Engine,
  port: GitHubPort,
  group: MergeGroupEvent,
): Promise<void> {
  const { repositoryId } = group;
  const base = group.baseRef.replace(/^refs\/heads\//, '');
  const queue = await port.mergeQueuePulls(group.repo, base, mergeGroupLastPr(group.headRef));
  const numbers = mergeGroupNumbers(queue, group.headRef);
  const found = await engine.store.pulls.numbered(repositoryId, numbers);
  const listed = mergeGroupMembers(numbers, found.map(agentPull));
  const requireApproval = new Map(
    found.map(
      (f) => [String(f.run.id), (f.run.config as RepoConfig).merge.requireApproval] as const,
    ),
  );
  const runs = new Map<string, MergeGroupRun>();
  for (const runKey of new Set(listed.flatMap((m) => (m.runKey ? [m.runKey] : [])))) {
    const { tasks, depsOf } = await engine.store.runs.graphOf(Number(runKey));
    runs.set(runKey, {
      requireApproval: requireApproval.get(runKey) ?? true,
      tasks: tasks.map((t) => ({
        taskId: t.taskKey,
        deps: depsOf.get(t.taskKey) ?? [],
        state: t.state,
        prNumber: t.prNumber ?? undefined,
        approvedSha: t.approvedSha ?? undefined,
        approvedBy: t.approvedBy ?? undefined,
      })),
    });
  }
  // Each agent PR's head as GitHub shows it now, not the store's copy, which may not have seen a
  // push yet (an enqueue by anyone with write access, a workflow token too, can follow one). A
  // queued PR whose head moved leaves the queue; should a group still carry an older head, a
  // head read now that is not the approved one fails it: the safe side.
  const members: MergeGroupPull[] = [];
  for (const member of listed) {
    if (member.taskId === undefined) {
      members.push(member);
      continue;
    }
    const read = await port.pull(group.repo, member.number);
    members.push(read ? { ...member, headSha: read.headSha } : member);
  }
  // Whether each approver still has write access: GitHub counts approvals when the PR merges.
  const approvers = new Map<string, ApproverStanding>();
  for (const login of mergeGroupApproversToRead(members, runs)) {
    const standing = await approverStanding(engine, port, group.repo, login, {
      group: group.headRef,
    });
    // GitHub did not answer: judged when the delivery is handled again, the group's check still
    // pending. Failed now, the queue would take the PR out as a CI failure of its own.
    if (standing === 'unknown')
      throw new Error(
        `could not read whether ${login}, who approved a PR of this merge group, has write access`,
      );
    approvers.set(login, standing);
  }
  const taskRows = new Map(
    found.map((f) => [`${f.run.id}\u0000${f.task.taskKey}`, f.task] as const),
  );
  for (const effect of decideMergeGroup({ members, runs, approvers }))
    await applyMergeGroupEffect(engine, port, group, effect, taskRows);
}

async function applyMergeGroupEffect(
  engine: Engine,
  port: GitHubPort,
  group: MergeGroupEvent,
  effect: MergeGroupEffect,
  taskRows: ReadonlyMap<string, TaskRow>,
): Promise<void> {
  switch (effect.kind) {
    case 'reportOrder':
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
      return;
    case 'withdrawApproval': {
      // Told first, as withdrawLostApproval does: after a crash in between, the next group finds
      // the comment and withdraws; withdrawn first, the PR would never be told.
      const { marker, body } = effect.comment;
      if (!(await port.findAppComment(group.repo, effect.pr, marker)))
        await port.createIssueComment(group.repo, effect.pr, body);
      const task = taskRows.get(`${effect.runKey}\u0000${effect.taskId}`);
      const withdrawn = task && (await clearApproval(engine, task, effect.move, effect.approval));
      engine.log.warn(
        {
          group: group.headRef,
          pr: effect.pr,
          approver: effect.approval.by,
          withdrawn: !!withdrawn,
        },
        'merge group: the approver no longer has write access; the PR told, the approval withdrawn if still held',
      );
      return;
    }
  }
}

function agentPull(found: { pull: PullRow; task: TaskRow; run: RunRow }): QueuedAgentPull {
  return { number: found.pull.number, taskId: found.task.taskKey, runKey: String(found.run.id) };
}
