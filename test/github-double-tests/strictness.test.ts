import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appOctokit,
  expectClean,
  startWorld,
  stopWorld,
  userOctokit,
  type World,
} from './helpers.js';

describe('strictness: routing, bodies and auth', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld();
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  it('answers an undocumented path with 404 and records a violation', async () => {
    const { octokit, double } = w;
    await expect(
      octokit.request('GET /repos/{owner}/{repo}/not-a-thing', { owner: 'acme', repo: 'widgets' }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      octokit.request('PATCH /repos/{owner}/{repo}/pulls/{n}/merge', {
        owner: 'acme',
        repo: 'widgets',
        n: 1,
      }),
    ).rejects.toMatchObject({ status: 404 });
    expect(double.violations.map((v) => v.kind)).toEqual([
      'undocumented-endpoint',
      'undocumented-endpoint',
    ]);
    expect(double.violations[1]?.message).toMatch(/PATCH is not documented/);
    expect(() => double.assertNoViolations()).toThrow(/2 violation/);
    double.clearViolations();
  });

  it('answers a documented but unmodelled endpoint with 501 and records it', async () => {
    const { octokit, double } = w;
    await expect(
      octokit.rest.repos.listReleases({ owner: 'acme', repo: 'widgets' }),
    ).rejects.toMatchObject({ status: 501 });
    expect(double.violations).toEqual([
      expect.objectContaining({ kind: 'unimplemented-endpoint' }),
    ]);
    double.clearViolations();
  });

  it('rejects unknown, missing and mistyped body properties with 422', async () => {
    const { octokit, double, repo } = w;
    const n = await double.openIssue(repo, { title: 't', user: 'alice' });
    await expect(
      octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        owner: 'acme',
        repo: 'widgets',
        issue_number: n,
        body: 'x',
        bodyy: 'typo',
      }),
    ).rejects.toMatchObject({ status: 422 });
    // Deliberately malformed requests: plain-string routes skip Octokit's typing.
    const comments: string = 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments';
    const update: string = 'PATCH /repos/{owner}/{repo}/issues/{issue_number}';
    await expect(
      octokit.request(comments, {
        owner: 'acme',
        repo: 'widgets',
        issue_number: n,
      }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      octokit.request(update, {
        owner: 'acme',
        repo: 'widgets',
        issue_number: n,
        state: 'finished',
      }),
    ).rejects.toMatchObject({ status: 422 });
    const messages = double.violations.map((v) => v.message).join('\n');
    expect(messages).toMatch(/unknown property "bodyy"/);
    expect(messages).toMatch(/a request body is required|missing required property "body"/);
    expect(messages).toMatch(/"finished" not in/);
    expect(double.comments(repo, n)).toHaveLength(0);
    double.clearViolations();
  });

  it('flags a pulls head filter without owner, which GitHub silently ignores', async () => {
    const { octokit, double } = w;
    await octokit.rest.pulls.list({ owner: 'acme', repo: 'widgets', head: 'agent/1/task_001' });
    expect(double.violations).toEqual([expect.objectContaining({ kind: 'suspicious-request' })]);
    double.clearViolations();
  });

  it('flags query parameters GitHub would silently ignore or reject', async () => {
    const { octokit, double } = w;
    const runs: string = 'GET /repos/{owner}/{repo}/actions/runs';
    await octokit.request(runs, { owner: 'acme', repo: 'widgets', head_branch: 'agent/1/x' });
    await octokit.rest.pulls.list({ owner: 'acme', repo: 'widgets', state: 'merged' as 'open' });
    // Documented, but the double does not model it: reported rather than ignored.
    await octokit.rest.issues.listForRepo({ owner: 'acme', repo: 'widgets', assignee: 'alice' });
    expect(double.violations.map((v) => v.message)).toEqual([
      expect.stringContaining('query parameter "head_branch" is not documented'),
      expect.stringContaining('query parameter state=merged is not one of'),
      expect.stringContaining(
        '"assignee" of GET /repos/{owner}/{repo}/issues is documented but the double ignores it',
      ),
    ]);
    double.clearViolations();
  });

  it('enforces the secondary rate limit on content-creating requests', async () => {
    const { octokit, double, repo } = w;
    const n = await double.openIssue(repo, { title: 't', user: 'alice' });
    double.contentWritesPerMinute = 3;
    for (let i = 0; i < 3; i++) {
      await octokit.rest.issues.createComment({
        owner: 'acme',
        repo: 'widgets',
        issue_number: n,
        body: `c${i}`,
      });
    }
    await expect(
      octokit.rest.issues.createComment({
        owner: 'acme',
        repo: 'widgets',
        issue_number: n,
        body: 'too many',
      }),
    ).rejects.toMatchObject({
      status: 403,
      response: { headers: expect.objectContaining({ 'retry-after': '60' }) },
    });
    // Reads are not content writes.
    await octokit.rest.issues.listComments({ owner: 'acme', repo: 'widgets', issue_number: n });
    expect(double.violations.map((v) => v.kind)).toEqual(['secondary-rate-limit']);
    expect(double.comments(repo, n)).toHaveLength(3);
    double.clearViolations();
  });

  it('follows the App JWT -> installation token flow and refuses the wrong credential', async () => {
    const { double } = w;
    const app = appOctokit(double);
    const { data: installations } = await app.rest.apps.listInstallations();
    expect(installations).toHaveLength(1);
    const inst = installations[0]!;
    expect(inst.id).toBeGreaterThan(2 ** 32);
    expect(inst.account).toMatchObject({ login: 'acme' });
    const { data: token } = await app.rest.apps.createInstallationAccessToken({
      installation_id: inst.id,
    });
    expect(token).toMatchObject({
      token: expect.stringMatching(/^ghs_/),
      repository_selection: 'all',
      permissions: expect.objectContaining({ checks: 'write' }),
    });
    expect(Date.parse(token.expires_at)).toBeGreaterThan(Date.now());

    // The JWT is not a repository credential, and no credential at all is refused.
    const { token: jwt } = (await app.auth({ type: 'app' })) as { token: string };
    const withJwt = await fetch(`${double.apiUrl}/repos/acme/widgets/issues`, {
      headers: { authorization: `Bearer ${jwt}` },
    });
    expect(withJwt.status).toBe(401);
    const anonymous = await fetch(`${double.apiUrl}/repos/acme/widgets/issues`);
    expect(anonymous.status).toBe(401);
    // An installation token does not open /app endpoints.
    const viaToken = await fetch(`${double.apiUrl}/app/installations`, {
      headers: { authorization: `token ${token.token}` },
    });
    expect(viaToken.status).toBe(401);
    // A JWT for another app id is refused.
    const [h, , s] = 'eyJhbGciOiJSUzI1NiJ9.x.sig'.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ iss: 999, exp: Math.floor(Date.now() / 1000) + 60 })).toString('base64url')}.${s}`;
    const wrongApp = await fetch(`${double.apiUrl}/app/installations`, {
      headers: { authorization: `Bearer ${forged}` },
    });
    expect(wrongApp.status).toBe(401);

    // Installations reach only their own account's repositories.
    await double.createRepo({ owner: 'other', name: 'thing' });
    const res = await fetch(`${double.apiUrl}/repos/other/thing/issues`, {
      headers: { authorization: `token ${token.token}` },
    });
    expect(res.status).toBe(404);
  });

  it('lets a test act as a user, and expired tokens answer 401', async () => {
    const { double, repo } = w;
    const n = await double.openIssue(repo, { title: 't', user: 'alice' });
    const alice = userOctokit(double, 'alice');
    const { data } = await alice.rest.issues.createComment({
      owner: 'acme',
      repo: 'widgets',
      issue_number: n,
      body: 'mine',
    });
    expect(data.user?.login).toBe('alice');
    expect(data.performed_via_github_app).toBeNull();
    double.expireTokens();
    await expect(
      alice.rest.issues.get({ owner: 'acme', repo: 'widgets', issue_number: n }),
    ).rejects.toMatchObject({ status: 401 });
  });

  it('logs requests, counts content writes and sends rate-limit headers', async () => {
    const { double, octokit, repo } = w;
    const n = await double.openIssue(repo, { title: 't', user: 'alice' });
    await octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' });
    const before = double.counts();
    const res = await octokit.rest.issues.get({ owner: 'acme', repo: 'widgets', issue_number: n });
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(5000);
    expect(res.headers['x-ratelimit-limit']).toBe('5000');
    await octokit.rest.issues.createComment({
      owner: 'acme',
      repo: 'widgets',
      issue_number: n,
      body: 'a',
    });
    await octokit.rest.issues.addLabels({
      owner: 'acme',
      repo: 'widgets',
      issue_number: n,
      labels: ['x'],
    });
    await octokit.rest.reactions.createForIssueComment({
      owner: 'acme',
      repo: 'widgets',
      comment_id: Number(double.comments(repo, n)[0]?.['id']),
      content: 'eyes',
    });
    const after = double.counts();
    expect(after.apiCalls - before.apiCalls).toBe(4);
    expect(after.contentWrites - before.contentWrites).toBe(3);
    expect(after.maxContentWritesPerMinute).toBeGreaterThanOrEqual(3);
    const last = double.requests[double.requests.length - 1]!;
    expect(last).toMatchObject({
      method: 'POST',
      status: 201,
      route: 'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
      body: { content: 'eyes' },
    });
  });
});
