import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

const owner = 'acme';
const repoName = 'widgets';

describe('issues, comments, labels, reactions, permissions, contents', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  it('sends labeled/unlabeled for people and for the app (as a Bot sender)', async () => {
    const { double, octokit, repo, receiver } = w;
    const n = await double.openIssue(repo, { title: 'Do it', body: 'body', user: 'alice' });
    await double.addLabel(repo, n, 'agent', 'alice');
    const labeled = receiver.of('issues', 'labeled')[0]!.payload;
    expect(labeled['label']).toMatchObject({ name: 'agent' });
    expect(labeled['sender']).toMatchObject({ login: 'alice', type: 'User' });
    expect(labeled['installation']).toEqual({ id: w.installationId, node_id: expect.any(String) });

    await octokit.rest.issues.addLabels({
      owner,
      repo: repoName,
      issue_number: n,
      labels: ['agent:done'],
    });
    await octokit.rest.issues.removeLabel({
      owner,
      repo: repoName,
      issue_number: n,
      name: 'agent',
    });
    await expect(
      octokit.rest.issues.removeLabel({ owner, repo: repoName, issue_number: n, name: 'agent' }),
    ).rejects.toMatchObject({ status: 404 });
    await double.waitForDeliveries();
    expect(receiver.names()).toEqual([
      'issues.opened',
      'issues.labeled',
      'issues.labeled',
      'issues.unlabeled',
    ]);
    const botLabel = receiver.of('issues', 'labeled')[1]!.payload;
    expect(botLabel['sender']).toMatchObject({ login: 'agent-coordinator[bot]', type: 'Bot' });
    expect(double.labels(repo, n)).toEqual(['agent:done']);
  });

  it('edits and closes issues with the matching webhooks', async () => {
    const { double, octokit, repo, receiver } = w;
    const n = await double.openIssue(repo, { title: 'Old', body: 'b', user: 'alice' });
    await octokit.rest.issues.update({
      owner,
      repo: repoName,
      issue_number: n,
      title: 'New',
      state: 'closed',
      state_reason: 'completed',
    });
    await double.waitForDeliveries();
    expect(receiver.names().slice(-2)).toEqual(['issues.edited', 'issues.closed']);
    expect(receiver.of('issues', 'edited')[0]!.payload['changes']).toEqual({
      title: { from: 'Old' },
    });
    expect(double.issue(repo, n)).toMatchObject({
      state: 'closed',
      state_reason: 'completed',
      title: 'New',
    });
    await double.reopenIssue(repo, n, 'alice');
    await double.closeIssue(repo, n, 'alice', 'not_planned');
    expect(receiver.names().slice(-2)).toEqual(['issues.reopened', 'issues.closed']);
  });

  it('lists, edits and reacts to comments; PR comments carry issue.pull_request', async () => {
    const { double, octokit, repo, receiver } = w;
    const n = await double.openIssue(repo, { title: 'T', user: 'alice' });
    const first = await double.comment(repo, n, '/approve', 'alice');
    await double.comment(repo, n, 'Run log', 'github-actions[bot]');
    const { data: mine } = await octokit.rest.issues.createComment({
      owner,
      repo: repoName,
      issue_number: n,
      body: '<!-- agent-coordinator:status -->\nv1',
    });
    await octokit.rest.issues.updateComment({
      owner,
      repo: repoName,
      comment_id: mine.id,
      body: '<!-- agent-coordinator:status -->\nv2',
    });
    // The app may not edit other people's comments.
    await expect(
      octokit.rest.issues.updateComment({
        owner,
        repo: repoName,
        comment_id: first,
        body: 'hijack',
      }),
    ).rejects.toMatchObject({ status: 403 });
    const { data: reaction } = await octokit.rest.reactions.createForIssueComment({
      owner,
      repo: repoName,
      comment_id: first,
      content: '+1',
    });
    expect(reaction.id).toBeGreaterThan(2 ** 31);
    const again = await octokit.rest.reactions.createForIssueComment({
      owner,
      repo: repoName,
      comment_id: first,
      content: '+1',
    });
    expect(again.status).toBe(200);

    const all = await octokit.paginate(octokit.rest.issues.listComments, {
      owner,
      repo: repoName,
      issue_number: n,
      per_page: 2,
    });
    expect(all.map((c) => c.user?.login)).toEqual([
      'alice',
      'github-actions[bot]',
      'agent-coordinator[bot]',
    ]);
    expect(all[2]?.body).toContain('v2');
    expect(all[0]?.reactions?.['+1']).toBe(1);
    await double.waitForDeliveries();
    const edited = receiver.of('issue_comment', 'edited')[0]!.payload;
    expect(edited['changes']).toEqual({ body: { from: '<!-- agent-coordinator:status -->\nv1' } });
    expect(receiver.of('issue_comment', 'created')[1]!.payload['sender']).toMatchObject({
      login: 'github-actions[bot]',
      type: 'Bot',
    });

    const pr = await double.openPr(repo, { head: 'f', title: 'F', by: 'alice' });
    await double.comment(repo, pr, '/hold', 'alice');
    const prComment = receiver.of('issue_comment', 'created').at(-1)!.payload;
    expect((prComment['issue'] as Record<string, unknown>)['pull_request']).toMatchObject({
      url: expect.stringContaining(`/pulls/${pr}`),
    });
  });

  it('reports collaborator permission with GitHub legacy mapping', async () => {
    const { double, octokit, repo } = w;
    await double.setPermission(repo, 'mia', 'maintain');
    await double.setPermission(repo, 'tom', 'triage');
    const get = async (username: string) =>
      (await octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo: repoName, username }))
        .data;
    expect(await get('mia')).toMatchObject({
      permission: 'write',
      role_name: 'maintain',
      user: { login: 'mia' },
    });
    expect(await get('tom')).toMatchObject({ permission: 'read', role_name: 'triage' });
    expect(await get('acme')).toMatchObject({ permission: 'admin', role_name: 'admin' });
    expect(await get('stranger')).toMatchObject({ permission: 'read', role_name: 'read' });
  });

  it("serves config like Probot reads it, and the owner's missing .github repo 404s cleanly", async () => {
    const { double, octokit } = w;
    const found = await octokit.config.get({
      owner,
      repo: repoName,
      path: '.github/agent-coordinator.yml',
    });
    expect(found.config).toEqual({ label: 'agent' });
    await double.createRepo({ owner, name: 'bare' });
    const missing = await octokit.config.get({
      owner,
      repo: 'bare',
      path: '.github/agent-coordinator.yml',
    });
    expect(missing.config).toEqual({});
    const { data: file } = await octokit.rest.repos.getContent({
      owner,
      repo: repoName,
      path: '.github/agent-coordinator.yml',
    });
    expect(Buffer.from((file as { content: string }).content, 'base64').toString()).toBe(
      'label: agent\n',
    );
    const { data: dir } = await octokit.rest.repos.getContent({
      owner,
      repo: repoName,
      path: '.github',
    });
    expect((dir as { name: string }[]).map((d) => d.name).sort()).toEqual([
      'agent-coordinator.yml',
      'workflows',
    ]);
    expect(double.violations).toHaveLength(0);
  });
});
