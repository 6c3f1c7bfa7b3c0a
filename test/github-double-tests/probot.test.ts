import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeMiddleware, Probot } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  APP_ID,
  expectClean,
  privateKey,
  QuietProbotOctokit,
  SECRET,
  startWorld,
  stopWorld,
  type World,
} from './helpers.js';

// The real Probot stack against the double, GitHub Enterprise layout (baseUrl …/api/v3).
describe('a Probot app served by the double', () => {
  let w: World;
  let server: Server;
  beforeEach(async () => {
    w = await startWorld();
    const probot = new Probot({
      appId: APP_ID,
      privateKey: privateKey(),
      secret: SECRET,
      baseUrl: w.double.apiUrl,
      Octokit: QuietProbotOctokit,
      logLevel: 'fatal',
    });
    const middleware = await createNodeMiddleware(
      (app) => {
        app.on('issues.labeled', async (context) => {
          const config = (await context.config<{ label: string }>('agent-coordinator.yml')) ?? {
            label: '?',
          };
          const { data: perm } = await context.octokit.rest.repos.getCollaboratorPermissionLevel(
            context.repo({ username: context.payload.sender.login }),
          );
          await context.octokit.rest.issues.createComment(
            context.issue({ body: `label=${config.label} sender=${perm.permission}` }),
          );
          await context.octokit.graphql(
            `query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { mergeQueue(branch: "main") { id } } }`,
            {
              owner: context.payload.repository.owner.login,
              name: context.payload.repository.name,
            },
          );
        });
      },
      { probot, webhooksPath: '/api/github/webhooks' },
    );
    server = createServer((req, res) => void middleware(req, res, () => res.writeHead(404).end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    w.double.setWebhookUrl(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`,
    );
  });
  afterEach(async () => {
    await stopWorld(w);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expectClean(w.double);
  });

  it('delivers signed webhooks that Probot verifies, and serves its event octokit', async () => {
    const { double, repo } = w;
    const n = await double.openIssue(repo, { title: 'T', user: 'alice' });
    await double.setPermission(repo, 'alice', 'write');
    // The verb resolves when Probot has answered, i.e. after the handler ran.
    await double.addLabel(repo, n, 'agent', 'alice');
    const comments = double.comments(repo, n);
    expect(comments.map((c) => c['body'])).toEqual(['label=agent sender=write']);
    expect(comments[0]?.['user']).toMatchObject({ login: 'agent-coordinator[bot]', type: 'Bot' });
    await double.waitForDeliveries();
    expect(double.deliveries().map((d) => `${d.event}.${d.action}:${d.statusCode}`)).toEqual([
      'issues.opened:200',
      'issues.labeled:200',
      'issue_comment.created:200',
    ]);
  });
});
