import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOctokitPort } from '../../src/github/octokit-port.js';
import { expectClean, startWorld, stopWorld, type World } from '../github-double-tests/helpers.js';

const repo = { owner: 'acme', repo: 'widgets' };

describe("the GitHub port's GraphQL calls", () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    await stopWorld(w);
  });

  async function queuedBranchPr(): Promise<{ nodeId: string; headSha: string }> {
    await w.double.enableMergeQueue(w.repo, 'main');
    const number = await w.double.openPr(w.repo, {
      head: 'agent/1/task_001',
      title: 'task 001',
      by: 'agent-coordinator[bot]',
    });
    const pull = await createOctokitPort(w.octokit).pull(repo, number);
    return { nodeId: pull!.nodeId, headSha: pull!.headSha };
  }

  it("turns GitHub's refusal of an enqueue (HTTP 200 with errors) into its reasons", async () => {
    const port = createOctokitPort(w.octokit);
    const pr = await queuedBranchPr();
    expect(await port.hasMergeQueue(repo, 'main')).toBe(true);
    const refused = await port.enqueuePullRequest(pr.nodeId, 'f'.repeat(40));
    expect(refused).toEqual({ ok: false, message: expect.stringMatching(/head/i) as string });
    expect(await port.enqueuePullRequest(pr.nodeId, pr.headSha)).toEqual({ ok: true });
    expectClean(w.double);
  });

  it('lets an HTTP failure of the GraphQL endpoint through: it is no refusal', async () => {
    const port = createOctokitPort(w.octokit);
    const pr = await queuedBranchPr();
    w.double.faults.add({ method: 'POST', path: /^\/graphql$/, status: 502 });
    await expect(port.enqueuePullRequest(pr.nodeId, pr.headSha)).rejects.toMatchObject({
      status: 502,
    });
    expectClean(w.double);
  });

  it("reads the PR numbers of a branch's merge queue in queue order, none without a queue", async () => {
    const port = createOctokitPort(w.octokit);
    expect(await port.mergeQueuePulls(repo, 'main')).toEqual([]);
    await w.double.enableMergeQueue(w.repo, 'main');
    const numbers: number[] = [];
    for (const head of ['agent/1/a', 'agent/1/b', 'agent/1/c']) {
      const number = await w.double.openPr(w.repo, { head, title: head, by: 'alice' });
      const pull = await port.pull(repo, number);
      expect(await port.enqueuePullRequest(pull!.nodeId, pull!.headSha)).toEqual({ ok: true });
      numbers.push(number);
    }
    expect(await port.mergeQueuePulls(repo, 'main')).toEqual(numbers);
    expectClean(w.double);
  });
});
