import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

const owner = 'acme';
const repoName = 'widgets';

const QUEUE_QUERY = `query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    mergeQueue(branch: "main") { id entries(first: 10) { totalCount nodes { position pullRequest { number } } } }
    pullRequest(number: $number) { id headRefOid mergeStateStatus isInMergeQueue }
  }
}`;

const ENQUEUE = `mutation($id: ID!, $oid: GitObjectID) {
  enqueuePullRequest(input: { pullRequestId: $id, expectedHeadOid: $oid }) { mergeQueueEntry { id position state } }
}`;

interface QueueData {
  repository: {
    mergeQueue: {
      id: string;
      entries: {
        totalCount: number;
        nodes: { position: number; pullRequest: { number: number } }[];
      };
    } | null;
    pullRequest: {
      id: string;
      headRefOid: string;
      mergeStateStatus: string;
      isInMergeQueue: boolean;
    };
  };
}

describe('GraphQL and the merge queue', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  async function readyPr(head: string): Promise<{ number: number; data: QueueData }> {
    const { double, octokit, repo } = w;
    const number = await double.openPr(repo, { head, title: head, by: 'agent-coordinator[bot]' });
    await double.setCheck(repo, double.branch(repo, head)!.sha, 'ci/test', 'completed', 'success');
    const data = await octokit.graphql<QueueData>(QUEUE_QUERY, { owner, name: repoName, number });
    return { number, data };
  }

  it('enqueues with expectedHeadOid and lands the group after its required check passes', async () => {
    const { double, octokit, repo, receiver } = w;
    await double.setRequiredChecks(repo, 'main', ['ci/test']);
    const noQueue = await octokit.graphql<QueueData>(QUEUE_QUERY, {
      owner,
      name: repoName,
      number: (await readyPr('agent/1/a')).number,
    });
    expect(noQueue.repository.mergeQueue).toBeNull();
    await double.enableMergeQueue(repo, 'main');
    const { number, data } = await readyPr('agent/1/task_001');
    expect(data.repository.mergeQueue?.entries.totalCount).toBe(0);
    expect(data.repository.pullRequest).toMatchObject({
      mergeStateStatus: 'CLEAN',
      isInMergeQueue: false,
    });
    const pr = data.repository.pullRequest;

    await expect(octokit.graphql(ENQUEUE, { id: pr.id, oid: 'f'.repeat(40) })).rejects.toThrow(
      /head/i,
    );
    const enq = await octokit.graphql<{
      enqueuePullRequest: { mergeQueueEntry: { position: number; state: string } };
    }>(ENQUEUE, { id: pr.id, oid: pr.headRefOid });
    expect(enq.enqueuePullRequest.mergeQueueEntry).toMatchObject({ position: 1, state: 'QUEUED' });
    expect(double.mergeQueue(repo, 'main')).toEqual([number]);
    // With a merge queue, direct merges are refused.
    await expect(
      octokit.rest.pulls.merge({ owner, repo: repoName, pull_number: number }),
    ).rejects.toMatchObject({ status: 405 });

    const processing = double.processMergeQueue(repo, 'main');
    const requested = await double.waitFor(
      () => receiver.of('merge_group', 'checks_requested')[0],
      { description: 'merge_group.checks_requested' },
    );
    const group = requested.payload['merge_group'] as {
      head_sha: string;
      head_ref: string;
      base_ref: string;
      base_sha: string;
    };
    expect(group.head_ref).toMatch(
      new RegExp(`^refs/heads/gh-readonly-queue/main/pr-${number}-${pr.headRefOid}$`),
    );
    expect(group.base_ref).toBe('refs/heads/main');
    await octokit.rest.checks.create({
      owner,
      repo: repoName,
      name: 'agent-coordinator/order',
      head_sha: group.head_sha,
      conclusion: 'success',
    });
    expect(double.mergeQueue(repo, 'main')).toEqual([number]);
    await double.setCheck(repo, group.head_sha, 'ci/test', 'completed', 'success');
    const result = await processing;
    expect(result).toEqual({ merged: [number], failed: [], headSha: group.head_sha });
    expect(double.branch(repo, 'main')!.sha).toBe(group.head_sha);
    expect(double.pull(repo, number)).toMatchObject({
      merged: true,
      merge_commit_sha: group.head_sha,
    });
    await double.waitForDeliveries();
    const tail = receiver.names().slice(receiver.names().indexOf('merge_group.checks_requested'));
    expect(tail).toEqual([
      'merge_group.checks_requested',
      'check_run.created',
      'check_run.completed',
      'check_suite.completed',
      'check_run.created',
      'check_run.completed',
      'check_suite.completed',
      'pull_request.closed',
      'push',
      'merge_group.destroyed',
      'pull_request.dequeued',
    ]);
    expect(receiver.of('merge_group', 'destroyed')[0]!.payload['reason']).toBe('merged');
    expect(double.branches(repo).some((b) => b.startsWith('gh-readonly-queue/'))).toBe(false);
  });

  it('dequeues the group when a required check fails', async () => {
    const { double, octokit, repo, receiver } = w;
    await double.setRequiredChecks(repo, 'main', ['agent-coordinator/order']);
    await double.enableMergeQueue(repo, 'main');
    const number = await double.openPr(repo, {
      head: 'agent/1/task_002',
      title: 'T2',
      by: 'agent-coordinator[bot]',
    });
    const sha = double.branch(repo, 'agent/1/task_002')!.sha;
    await octokit.rest.checks.create({
      owner,
      repo: repoName,
      name: 'agent-coordinator/order',
      head_sha: sha,
      conclusion: 'success',
    });
    const { repository } = await octokit.graphql<QueueData>(QUEUE_QUERY, {
      owner,
      name: repoName,
      number,
    });
    await octokit.graphql(ENQUEUE, { id: repository.pullRequest.id, oid: sha });
    const mainBefore = double.branch(repo, 'main')!.sha;
    const processing = double.processMergeQueue(repo);
    const requested = await double.waitFor(
      () => receiver.of('merge_group', 'checks_requested')[0],
      { description: 'checks_requested' },
    );
    const groupSha = (requested.payload['merge_group'] as { head_sha: string }).head_sha;
    await octokit.rest.checks.create({
      owner,
      repo: repoName,
      name: 'agent-coordinator/order',
      head_sha: groupSha,
      conclusion: 'failure',
      output: { title: 'Out of order', summary: 'task_001 first' },
    });
    expect(await processing).toEqual({ merged: [], failed: [number], headSha: groupSha });
    expect(double.branch(repo, 'main')!.sha).toBe(mainBefore);
    await double.waitForDeliveries();
    expect(receiver.of('merge_group', 'destroyed')[0]!.payload['reason']).toBe('dequeued');
    expect(receiver.of('pull_request', 'dequeued')[0]!.payload['reason']).toBe('CI_FAILURE');
    expect(double.pull(repo, number)).toMatchObject({ state: 'open', merged: false });
  });

  it('dequeues by mutation', async () => {
    const { double, octokit, repo, receiver } = w;
    await double.enableMergeQueue(repo, 'main');
    const { number, data } = await readyPr('agent/1/task_003');
    await octokit.graphql(ENQUEUE, {
      id: data.repository.pullRequest.id,
      oid: data.repository.pullRequest.headRefOid,
    });
    await octokit.graphql(
      `mutation($id: ID!) { dequeuePullRequest(input: { id: $id }) { mergeQueueEntry { id } } }`,
      { id: data.repository.pullRequest.id },
    );
    expect(double.mergeQueue(repo, 'main')).toEqual([]);
    await double.waitForDeliveries();
    expect(
      receiver
        .of('pull_request', 'dequeued')
        .map((h) => [h.payload['number'], h.payload['reason']]),
    ).toEqual([[number, 'MANUAL']]);
  });

  // GitHub's `merge_group.destroyed`: "This happens when a pull request is removed from the
  // queue: any group containing that pull request is also destroyed." No review takes a PR out of
  // the queue: GitHub lists none among its removal reasons.
  it('destroys a group awaiting checks when one of its PRs leaves the queue; a review leaves it in', async () => {
    const { double, octokit, repo, receiver } = w;
    await double.setRequiredChecks(repo, 'main', ['ci/test']);
    await double.enableMergeQueue(repo, 'main');
    await double.setPermission(repo, 'carol', 'write');
    const first = await readyPr('agent/1/task_004');
    const second = await readyPr('agent/1/task_005');
    for (const { data } of [first, second])
      await octokit.graphql(ENQUEUE, {
        id: data.repository.pullRequest.id,
        oid: data.repository.pullRequest.headRefOid,
      });
    const mainBefore = double.branch(repo, 'main')!.sha;
    const processing = double.processMergeQueue(repo, 'main', { batch: 2 });
    const requested = await double.waitFor(
      () => receiver.of('merge_group', 'checks_requested')[0],
      { description: 'checks_requested' },
    );
    const groupSha = (requested.payload['merge_group'] as { head_sha: string }).head_sha;

    await double.review(repo, first.number, { event: 'REQUEST_CHANGES', body: 'No.', by: 'carol' });
    expect(double.mergeQueue(repo, 'main')).toEqual([first.number, second.number]);
    await octokit.graphql(
      `mutation($id: ID!) { dequeuePullRequest(input: { id: $id }) { mergeQueueEntry { id } } }`,
      { id: first.data.repository.pullRequest.id },
    );
    expect(await processing).toEqual({ merged: [], failed: [], headSha: groupSha });
    await double.setCheck(repo, groupSha, 'ci/test', 'completed', 'success');
    expect(double.branch(repo, 'main')!.sha).toBe(mainBefore);
    expect(double.pull(repo, first.number)).toMatchObject({ state: 'open', merged: false });
    expect(double.mergeQueue(repo, 'main')).toEqual([second.number]);
    await double.waitForDeliveries();
    expect(receiver.of('merge_group', 'destroyed').map((h) => h.payload['reason'])).toEqual([
      'dequeued',
    ]);
    expect(
      receiver
        .of('pull_request', 'dequeued')
        .map((h) => [h.payload['number'], h.payload['reason']]),
    ).toEqual([[first.number, 'MANUAL']]);

    // The next group holds the PR that stayed.
    const next = double.processMergeQueue(repo, 'main');
    const again = await double.waitFor(() => receiver.of('merge_group', 'checks_requested')[1], {
      description: 'the second checks_requested',
    });
    const nextSha = (again.payload['merge_group'] as { head_sha: string }).head_sha;
    await double.setCheck(repo, nextSha, 'ci/test', 'completed', 'success');
    expect((await next).merged).toEqual([second.number]);
  });

  it('records invalid documents and unmodelled fields as violations', async () => {
    const { double, octokit } = w;
    await expect(
      octokit.graphql(`{ repository(owner: "acme", name: "widgets") { mergeQueue { nope } } }`),
    ).rejects.toThrow(/nope/);
    await expect(octokit.graphql(`{ repository(owner: "acme"`)).rejects.toThrow(/Syntax Error/);
    await octokit.graphql(`{ repository(owner: "acme", name: "widgets") { description } }`);
    const missing = await octokit
      .graphql<{ repository: null }>(`{ repository(owner: "acme", name: "nope") { id } }`)
      .catch((e: { errors: { type: string }[] }) => e.errors);
    expect(missing).toEqual([expect.objectContaining({ type: 'NOT_FOUND' })]);
    expect(double.violations.map((v) => v.kind)).toEqual([
      'graphql-invalid',
      'graphql-invalid',
      'graphql-unimplemented',
    ]);
    double.clearViolations();
  });
});
