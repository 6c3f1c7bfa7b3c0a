import type { Core } from '../core.js';
import { branchSha, createCommit, threeWayMerge } from '../git.js';
import { nodeId } from '../ids.js';
import type { Account, MergeQueue, MergeQueueEntry, Pull, Repo } from '../model.js';
import { simpleCommitJson } from '../render/repos.js';
import { waitUntil } from '../wait.js';
import { checkVerdicts, mergeability, requiredCheckApps, requiredChecks } from './mergeability.js';
import { sendPullEvent, type Sent } from './pull-events.js';
import { deleteBranch, moveBranch } from './refs.js';

// Errors the GraphQL layer reports as GitHub would (not double gaps).
export class QueueError extends Error {
  constructor(
    message: string,
    readonly type: string = 'UNPROCESSABLE',
  ) {
    super(message);
  }
}

let queueCounter = 0;

export function enableMergeQueue(core: Core, repo: Repo, branch: string): MergeQueue {
  const known = repo.mergeQueues.get(branch);
  if (known) return known;
  const queue: MergeQueue = {
    id: nodeId('MQ', `${repo.id}:${branch}:${queueCounter++}`),
    branch,
    entries: [],
  };
  repo.mergeQueues.set(branch, queue);
  core.changed('merge-queue', { repo: repo.fullName, branch });
  return queue;
}

export function queueBot(core: Core): Account {
  return core.account('github-merge-queue[bot]');
}

export function enqueue(
  core: Core,
  repo: Repo,
  pull: Pull,
  by: Account,
  expectedHeadOid?: string,
): { entry: MergeQueueEntry; sent: Sent } {
  const queue = repo.mergeQueues.get(pull.baseRef);
  if (!queue)
    throw new QueueError(`The merge queue is not enabled for the base branch ${pull.baseRef}`);
  if (pull.issue.state !== 'open') throw new QueueError('Pull request is closed');
  if (expectedHeadOid !== undefined && expectedHeadOid !== pull.headSha) {
    throw new QueueError(
      `Expected head oid ${expectedHeadOid} does not match the pull request head ${pull.headSha}`,
    );
  }
  const existing = queue.entries.find((e) => e.pull === pull);
  if (existing) return { entry: existing, sent: [] };
  const m = mergeability(core, repo, pull, { fresh: true });
  if (m.state === 'dirty' || m.state === 'blocked' || m.state === 'draft') {
    throw new QueueError(`Pull request is not mergeable (${m.state})`);
  }
  const entry: MergeQueueEntry = {
    id: nodeId('MQE', `${pull.id}:${queueCounter++}`),
    pull,
    enqueuer: by,
    enqueuedAt: core.now(),
    headOid: pull.headSha,
    state: 'QUEUED',
  };
  queue.entries.push(entry);
  core.changed('merge-queue', { repo: repo.fullName, branch: pull.baseRef, enqueued: pull.number });
  return { entry, sent: [sendPullEvent(core, repo, pull, 'enqueued', by)] };
}

export function dequeue(core: Core, repo: Repo, pull: Pull, by: Account, reason = 'MANUAL'): Sent {
  const queue = repo.mergeQueues.get(pull.baseRef);
  const before = queue?.entries.length ?? 0;
  if (!queue) throw new QueueError('Pull request is not in a merge queue');
  queue.entries = queue.entries.filter((e) => e.pull !== pull);
  if (queue.entries.length === before) throw new QueueError('Pull request is not in a merge queue');
  core.changed('merge-queue', { repo: repo.fullName, branch: pull.baseRef, dequeued: pull.number });
  return [sendPullEvent(core, repo, pull, 'dequeued', by, { reason })];
}

export interface QueueRunResult {
  merged: number[];
  failed: number[];
  headSha: string | null;
}

// Builds one merge group from the first `batch` entries, asks for checks, waits for the
// base branch's required checks on the group commit, then lands or dequeues the group. A PR that
// leaves the queue meanwhile (removed, pushed to, closed) destroys the group, as GitHub documents
// for `merge_group.destroyed`: "any group containing that pull request is also destroyed"; the
// group's other PRs stay queued for the next group.
export async function processMergeQueue(
  core: Core,
  repo: Repo,
  branch: string,
  options: { batch?: number; timeoutMs?: number } = {},
): Promise<{ result: QueueRunResult; sent: Sent }> {
  const queue = repo.mergeQueues.get(branch);
  const bot = queueBot(core);
  const sent: Sent = [];
  const result: QueueRunResult = { merged: [], failed: [], headSha: null };
  const baseSha = branchSha(repo, branch);
  if (!queue || !baseSha || queue.entries.length === 0) return { result, sent };
  const group: { entry: MergeQueueEntry; sha: string }[] = [];
  let head = baseSha;
  for (const entry of queue.entries.slice(0, options.batch ?? 1)) {
    const pull = entry.pull;
    const merged = threeWayMerge(repo, head, pull.headSha);
    if (!merged.ok || pull.forcedConflict) {
      queue.entries = queue.entries.filter((e) => e !== entry);
      result.failed.push(pull.number);
      sent.push(sendPullEvent(core, repo, pull, 'dequeued', bot, { reason: 'MERGE_CONFLICT' }));
      continue;
    }
    const message = `Merge pull request #${pull.number} from ${pull.headRepo.owner.login}/${pull.headRef}\n\n${pull.issue.title}`;
    head = createCommit(core, repo, {
      parents: [head, pull.headSha],
      message,
      tree: merged.tree,
      author: entry.enqueuer,
    }).sha;
    entry.state = 'AWAITING_CHECKS';
    group.push({ entry, sha: head });
  }
  const last = group[group.length - 1];
  if (!last) return { result, sent };
  const queueBranch = `gh-readonly-queue/${branch}/pr-${last.entry.pull.number}-${last.entry.pull.headSha}`;
  moveBranch(core, repo, queueBranch, head, bot);
  result.headSha = head;
  const headCommit = repo.commits.get(head);
  const mergeGroup = {
    head_sha: head,
    head_ref: `refs/heads/${queueBranch}`,
    base_sha: baseSha,
    base_ref: `refs/heads/${branch}`,
    head_commit: headCommit ? simpleCommitJson(headCommit) : null,
  };
  const groupHead = head;
  sent.push(
    core.webhooks.sendWebhook({
      event: 'merge_group',
      action: 'checks_requested',
      repo,
      sender: bot,
      body: { merge_group: mergeGroup },
    }),
  );
  const required = requiredChecks(repo, branch);
  const left = () => group.some(({ entry }) => !queue.entries.includes(entry));
  let verdict: 'success' | 'failure' | 'timeout' | 'left';
  try {
    verdict = await waitUntil(
      core.events,
      () => {
        if (core.closed) return 'failure';
        if (left()) return 'left';
        const v = checkVerdicts(repo, groupHead, requiredCheckApps(repo, branch));
        if (required.some((n) => v.get(n) === 'failure')) return 'failure';
        return required.every((n) => v.get(n) === 'success') ? 'success' : undefined;
      },
      {
        timeoutMs: options.timeoutMs ?? 10_000,
        description: `required checks ${JSON.stringify(required)} on merge group ${groupHead}`,
      },
    );
  } catch {
    verdict = 'timeout';
  }
  const groupPulls = group.map((g) => g.entry.pull);
  if (verdict === 'left') {
    // The PR that left had its `dequeued` when it left; nothing of the group lands.
    for (const { entry } of group) entry.state = 'QUEUED';
    sent.push(
      core.webhooks.sendWebhook({
        event: 'merge_group',
        action: 'destroyed',
        repo,
        sender: bot,
        body: { reason: 'dequeued', merge_group: mergeGroup },
      }),
    );
    deleteBranch(core, repo, queueBranch, bot);
    core.changed('merge-queue', { repo: repo.fullName, branch, processed: result });
    return { result, sent };
  }
  queue.entries = queue.entries.filter((e) => !groupPulls.includes(e.pull));
  if (verdict === 'success' && branchSha(repo, branch) === baseSha) {
    const now = core.now();
    for (const { entry, sha } of group) {
      const pull = entry.pull;
      pull.merged = true;
      pull.mergedAt = now;
      pull.mergedBy = entry.enqueuer;
      pull.mergeCommitSha = sha;
      pull.issue.state = 'closed';
      pull.issue.closedAt = now;
      pull.issue.updatedAt = now;
      pull.issue.closedBy = entry.enqueuer;
      result.merged.push(pull.number);
      core.changed('pull', { repo: repo.fullName, number: pull.number, merged: true });
      sent.push(sendPullEvent(core, repo, pull, 'closed', entry.enqueuer));
    }
    sent.push(...moveBranch(core, repo, branch, groupHead, bot));
    sent.push(
      core.webhooks.sendWebhook({
        event: 'merge_group',
        action: 'destroyed',
        repo,
        sender: bot,
        body: { reason: 'merged', merge_group: mergeGroup },
      }),
    );
    for (const pull of groupPulls)
      sent.push(sendPullEvent(core, repo, pull, 'dequeued', bot, { reason: 'MERGE' }));
  } else {
    sent.push(
      core.webhooks.sendWebhook({
        event: 'merge_group',
        action: 'destroyed',
        repo,
        sender: bot,
        body: { reason: 'dequeued', merge_group: mergeGroup },
      }),
    );
    for (const pull of groupPulls) {
      result.failed.push(pull.number);
      const reason =
        verdict === 'timeout'
          ? 'CI_TIMEOUT'
          : verdict === 'failure'
            ? 'CI_FAILURE'
            : 'UNKNOWN_REMOVAL_REASON';
      sent.push(sendPullEvent(core, repo, pull, 'dequeued', bot, { reason }));
    }
  }
  deleteBranch(core, repo, queueBranch, bot);
  core.changed('merge-queue', { repo: repo.fullName, branch, processed: result });
  return { result, sent };
}
