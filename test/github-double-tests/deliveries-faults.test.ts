import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appOctokit, expectClean, startWorld, stopWorld, type World } from './helpers.js';

const owner = 'acme';
const repoName = 'widgets';

describe('app delivery API, missed webhooks and faults', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  it('lists deliveries with cursor pagination and redelivers a failed one with its guid', async () => {
    const { double, repo, receiver } = w;
    const app = appOctokit(double);
    const n = await double.openIssue(repo, { title: 'T', user: 'alice' });
    double.webhooksDown = true;
    await double.addLabel(repo, n, 'agent', 'alice');
    double.webhooksDown = false;
    receiver.answerStatus = 500;
    await double.comment(repo, n, 'hello', 'alice');
    receiver.answerStatus = 200;
    await double.comment(repo, n, 'again', 'alice');

    const all = await app.paginate('GET /app/hook/deliveries', { per_page: 2 });
    expect(all.map((d) => `${d.event}.${d.action}:${d.status_code}`)).toEqual([
      'issue_comment.created:200',
      'issue_comment.created:500',
      'issues.labeled:502',
      'issues.opened:200',
    ]);
    expect(all.every((d) => d.id > 2 ** 32 && d.installation_id === w.installationId)).toBe(true);
    const { data: failed } = await app.request('GET /app/hook/deliveries', { status: 'failure' });
    expect(failed.map((d) => d.status_code)).toEqual([500, 502]);

    const missed = failed.find((d) => d.status_code === 502)!;
    const { data: detail } = await app.rest.apps.getWebhookDelivery({
      delivery_id: Number(missed.id),
    });
    expect(detail.request.headers).toMatchObject({ 'x-github-event': 'issues' });
    expect(detail.request.payload).toMatchObject({ action: 'labeled' });
    const before = receiver.of('issues', 'labeled').length;
    const res = await app.rest.apps.redeliverWebhookDelivery({ delivery_id: Number(missed.id) });
    expect(res.status).toBe(202);
    await double.waitForDeliveries();
    const got = receiver.of('issues', 'labeled');
    expect(got).toHaveLength(before + 1);
    expect(got.at(-1)!.delivery).toBe(missed.guid);
    const { data: latest } = await app.request('GET /app/hook/deliveries', { per_page: 1 });
    expect(latest[0]).toMatchObject({ guid: missed.guid, redelivery: true, status_code: 200 });
  });

  it('applies a 500 fault once, then answers normally', async () => {
    const { double, octokit, repo } = w;
    const n = await double.openIssue(repo, { title: 'T', user: 'alice' });
    double.faults.add({ method: 'POST', path: /\/issues\/\d+\/comments$/, status: 500 });
    await expect(
      octokit.rest.issues.createComment({ owner, repo: repoName, issue_number: n, body: 'x' }),
    ).rejects.toMatchObject({ status: 500 });
    await octokit.rest.issues.createComment({ owner, repo: repoName, issue_number: n, body: 'x' });
    expect(double.comments(repo, n)).toHaveLength(1);
    expect(
      double.requests
        .filter((r) => r.method === 'POST' && r.path.endsWith('/comments'))
        .map((r) => r.status),
    ).toEqual([500, 201]);
  });

  it('drops the connection, adds headers and delays on request', async () => {
    const { double, octokit, repo } = w;
    const n = await double.openIssue(repo, { title: 'T', user: 'alice' });
    await octokit.rest.issues.get({ owner, repo: repoName, issue_number: n });
    double.faults.add({ path: /\/issues\/\d+$/, drop: true });
    await expect(
      octokit.rest.issues.get({ owner, repo: repoName, issue_number: n }),
    ).rejects.toThrow();
    double.faults.add({
      path: /\/issues\/\d+$/,
      status: 403,
      headers: { 'retry-after': '1', 'x-ratelimit-remaining': '0' },
      body: { message: 'You have exceeded a secondary rate limit.' },
      times: 2,
    });
    for (let i = 0; i < 2; i++) {
      await expect(
        octokit.rest.issues.get({ owner, repo: repoName, issue_number: n }),
      ).rejects.toMatchObject({
        status: 403,
        response: { headers: expect.objectContaining({ 'retry-after': '1' }) },
      });
    }
    double.faults.add({ path: /\/issues\/\d+$/, delayMs: 20 });
    const { data } = await octokit.rest.issues.get({ owner, repo: repoName, issue_number: n });
    expect(data.number).toBe(n);
    expect(double.faults.pending).toBe(0);
  });

  it('waitFor re-evaluates on events and rejects with the description on timeout', async () => {
    const { double, repo } = w;
    const seen = double.waitFor(
      (d) => d.comments(repo, 1).find((c) => String(c['body']) === 'done'),
      { description: 'the done comment' },
    );
    const n = await double.openIssue(repo, { title: 'T', user: 'alice' });
    await double.comment(repo, n, 'done', 'alice');
    expect((await seen)['body']).toBe('done');
    await expect(
      double.waitFor(() => false, { timeoutMs: 30, description: 'something that never happens' }),
    ).rejects.toThrow(/timed out after 30 ms waiting for something that never happens/);
  });
});
