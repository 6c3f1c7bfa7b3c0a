import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { githubSchema } from '../github-double/graphql/schema.js';
import {
  GRAPHQL_MUTATION_PERMISSIONS,
  GRAPHQL_OBJECT_PERMISSIONS,
  REST_PERMISSIONS,
  type Access,
} from '../github-double/index.js';
import { buildRoutes } from '../github-double/routes.js';
import { manifestPermissions } from '../github-double/server/app-manifest.js';
import { expectClean, startWorld, stopWorld, type World } from './helpers.js';

function appPermissionNames(): Set<string> {
  const require = createRequire(import.meta.url);
  const spec = JSON.parse(
    readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8'),
  ) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
  return new Set(Object.keys(spec.components.schemas['app-permissions']!.properties));
}

function permissionsOf(access: Access): string[] {
  return access.kind === 'repository' ? access.anyOf.map((r) => r.permission) : [];
}

describe('github double: the permission table', () => {
  it('has an entry for every route the double serves', () => {
    const missing = [...buildRoutes().keys()].filter((route) => !(route in REST_PERMISSIONS));
    expect(missing).toEqual([]);
  });

  it('names only permissions GitHub Apps have, and GraphQL types and mutations GitHub has', () => {
    const known = appPermissionNames();
    const all = [
      ...Object.values(REST_PERMISSIONS),
      ...Object.values(GRAPHQL_OBJECT_PERMISSIONS),
      ...Object.values(GRAPHQL_MUTATION_PERMISSIONS),
    ].flatMap(permissionsOf);
    expect(all.filter((p) => !known.has(p))).toEqual([]);
    const schema = githubSchema();
    expect(Object.keys(GRAPHQL_OBJECT_PERMISSIONS).filter((t) => !schema.getType(t))).toEqual([]);
    const mutations = schema.getMutationType()!.getFields();
    expect(Object.keys(GRAPHQL_MUTATION_PERMISSIONS).filter((m) => !(m in mutations))).toEqual([]);
  });

  it('takes the App permissions from app.yml, which grants statuses: read', () => {
    expect(manifestPermissions()).toMatchObject({ statuses: 'read', metadata: 'read' });
  });
});

describe('github double: permissions enforced on installation tokens', () => {
  let w: World | undefined;

  afterEach(async () => {
    const world = w;
    w = undefined;
    await stopWorld(world);
    if (world) expectClean(world.double);
  });

  async function startWith(permissions?: Record<string, 'read' | 'write'>): Promise<World> {
    w = await startWorld(permissions ? { appPermissions: permissions } : {});
    await w.double.createRepo({ owner: 'acme', name: 'secret', private: true });
    return w;
  }

  const combinedStatus = (world: World, repo: string) =>
    world.octokit.rest.repos.getCombinedStatusForRef({ owner: 'acme', repo, ref: 'main' });

  it('refuses the combined status of a private repository without statuses: read', async () => {
    const { statuses: _statuses, ...withoutStatuses } = manifestPermissions();
    const world = await startWith(withoutStatuses as Record<string, 'read' | 'write'>);
    await expect(combinedStatus(world, 'secret')).rejects.toMatchObject({
      status: 403,
      response: {
        data: {
          message: 'Resource not accessible by integration',
          documentation_url: expect.stringMatching(
            /^https:\/\/docs\.github\.com\/rest\/commits\/statuses/,
          ),
          status: '403',
        },
      },
    });
    // A public repository's statuses are anyone's to read.
    expect((await combinedStatus(world, 'widgets')).status).toBe(200);
  });

  it("serves the combined status of a private repository with app.yml's permissions", async () => {
    const world = await startWith();
    expect((await combinedStatus(world, 'secret')).status).toBe(200);
    const repo = await world.octokit.rest.repos.get({ owner: 'acme', repo: 'secret' });
    expect(repo.data).toMatchObject({ private: true, visibility: 'private' });
  });

  it('checks reads on private repositories and writes everywhere', async () => {
    const world = await startWith({ metadata: 'read', contents: 'read' });
    const issues = (repo: string) => world.octokit.rest.issues.listForRepo({ owner: 'acme', repo });
    await expect(issues('secret')).rejects.toMatchObject({ status: 403 });
    expect((await issues('widgets')).status).toBe(200);
    expect(
      (
        await world.octokit.rest.repos.getContent({
          owner: 'acme',
          repo: 'secret',
          path: 'README.md',
        })
      ).status,
    ).toBe(200);
    await expect(
      world.octokit.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'x' }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('answers GraphQL reads and mutations it may not make with FORBIDDEN', async () => {
    const { merge_queues: _mq, ...withoutQueues } = manifestPermissions();
    const world = await startWith(withoutQueues as Record<string, 'read' | 'write'>);
    const { double, octokit } = world;
    await double.enableMergeQueue('acme/secret', 'main');
    await double.enableMergeQueue(world.repo, 'main');
    const query = `query($owner: String!, $name: String!) {
      repository(owner: $owner, name: $name) { name mergeQueue(branch: "main") { id } }
    }`;
    await expect(octokit.graphql(query, { owner: 'acme', name: 'secret' })).rejects.toMatchObject({
      errors: [
        expect.objectContaining({
          type: 'FORBIDDEN',
          message: 'Resource not accessible by integration',
          path: ['repository', 'mergeQueue'],
        }),
      ],
      data: { repository: { name: 'secret', mergeQueue: null } },
    });
    await double.setPermission(world.repo, 'alice', 'write');
    const number = await double.openPr(world.repo, { head: 'feature', title: 'F', by: 'alice' });
    const pull = await octokit.rest.pulls.get({
      owner: 'acme',
      repo: 'widgets',
      pull_number: number,
    });
    await expect(
      octokit.graphql(
        `mutation($id: ID!) { enqueuePullRequest(input: { pullRequestId: $id }) { clientMutationId } }`,
        { id: pull.data.node_id },
      ),
    ).rejects.toMatchObject({
      errors: [expect.objectContaining({ type: 'FORBIDDEN' })],
    });
    expect(double.mergeQueue(world.repo, 'main')).toEqual([]);
  });
});
