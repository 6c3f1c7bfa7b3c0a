import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

describe('github double smoke', () => {
  let w: World | undefined;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    const world = w;
    w = undefined;
    await stopWorld(world);
    if (world) expectClean(world.double);
  });

  it('serves issues and comments to a Probot octokit and sends signed webhooks', async () => {
    const { double, octokit, repo, receiver } = w!;
    const n = await double.openIssue(repo, { title: 'Add login', body: 'please', user: 'alice' });
    const { data: issue } = await octokit.rest.issues.get({
      owner: 'acme',
      repo: 'widgets',
      issue_number: n,
    });
    expect(issue.title).toBe('Add login');
    const { data: comment } = await octokit.rest.issues.createComment({
      owner: 'acme',
      repo: 'widgets',
      issue_number: n,
      body: 'hi',
    });
    expect(comment.id).toBeGreaterThan(2 ** 31);
    await double.waitForDeliveries();
    expect(receiver.names()).toEqual(['issues.opened', 'issue_comment.created']);
    const created = receiver.of('issue_comment', 'created')[0]!;
    expect((created.payload['sender'] as { type: string; login: string }).login).toBe(
      'agent-coordinator[bot]',
    );
    expect(receiver.rejected).toBe(0);
  });
});
