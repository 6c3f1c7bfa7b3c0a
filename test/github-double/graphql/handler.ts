import { validate as validateAgainstGitHub } from '@octokit/graphql-schema';
import {
  execute,
  GraphQLError,
  parse,
  type DocumentNode,
  type GraphQLFieldResolver,
} from 'graphql';
import type { Core } from '../core.js';
import type { Account, Pull, Repo, ReviewThread, TokenInfo } from '../model.js';
import { resolveThread } from '../ops/review-threads.js';
import { dequeue, enqueue, QueueError } from '../ops/merge-queue.js';
import { atLeast, tokenPermission } from '../server/auth.js';
import type { ApiResponse } from '../server/http.js';
import {
  GRAPHQL_MUTATION_PERMISSIONS,
  GRAPHQL_OBJECT_PERMISSIONS,
  isReadOnly,
  type Access,
} from '../server/permissions.js';
import type { GraphqlCall } from '../server/http-server.js';
import {
  actorNode,
  entryNode,
  GitHubGraphQLError,
  mergeQueueNode,
  owningRepo,
  pullNode,
  repositoryNode,
  threadNode,
  type GqlObject,
} from './nodes.js';
import { githubSchema } from './schema.js';

// GitHub answers an object an installation token may not see as missing, and one it may see
// but not read (or a change it may not make) as FORBIDDEN.
function checkAccess(
  core: Core,
  token: TokenInfo | undefined,
  repo: Repo,
  access: Access | undefined,
  what: string,
): void {
  if (!token || token.kind !== 'installation') return;
  if (tokenPermission(core, token, repo, 'metadata') === 'none') {
    throw new GitHubGraphQLError(
      `Could not resolve to a ${what} with the name '${repo.fullName}'.`,
      'NOT_FOUND',
    );
  }
  if (!access || access.kind !== 'repository') return;
  if (!repo.private && isReadOnly(access)) return;
  if (access.anyOf.some((r) => atLeast(tokenPermission(core, token, repo, r.permission), r.level)))
    return;
  throw new GitHubGraphQLError('Resource not accessible by integration', 'FORBIDDEN');
}

function checkRead(core: Core, token: TokenInfo | undefined, value: unknown): void {
  for (const item of Array.isArray(value) ? value : [value]) {
    const repo = owningRepo(item);
    if (!repo) continue;
    const type = (item as { __typename: string }).__typename;
    checkAccess(core, token, repo, GRAPHQL_OBJECT_PERMISSIONS[type], type);
  }
}

function findPullByNodeId(core: Core, id: string): { repo: Repo; pull: Pull } | undefined {
  for (const repo of core.repos.values()) {
    for (const pull of repo.pulls.values()) if (pull.nodeId === id) return { repo, pull };
  }
  return undefined;
}

function findThread(
  core: Core,
  id: string,
): { repo: Repo; pull: Pull; thread: ReviewThread } | undefined {
  for (const repo of core.repos.values())
    for (const pull of repo.pulls.values()) {
      const thread = pull.threads.find((t) => t.id === id);
      if (thread) return { repo, pull, thread };
    }
  return undefined;
}

function findNode(core: Core, id: string): GqlObject | null {
  const found = findThread(core, id);
  if (found) return threadNode(core, found.repo, found.pull, found.thread);
  for (const repo of core.repos.values()) {
    if (repo.nodeId === id) return repositoryNode(core, repo);
    for (const pull of repo.pulls.values())
      if (pull.nodeId === id) return pullNode(core, repo, pull);
    for (const queue of repo.mergeQueues.values()) {
      if (queue.id === id) return mergeQueueNode(core, repo, queue);
      const entry = queue.entries.find((e) => e.id === id);
      if (entry) return entryNode(core, repo, queue, entry);
    }
  }
  const unmodelled = [...core.repos.values()].some(
    (r) =>
      [...r.issues.values()].some((i) => i.nodeId === id) ||
      [...r.comments.values()].some((c) => c.nodeId === id),
  );
  if (unmodelled) {
    core.violation(
      'graphql-unimplemented',
      'POST',
      '/graphql',
      `node(id: "${id}") names an issue or comment, which the double does not model in GraphQL`,
    );
    return null;
  }
  throw new GitHubGraphQLError(
    `Could not resolve to a node with the global id of '${id}'`,
    'NOT_FOUND',
  );
}

function mayWrite(repo: Repo, user: Account): boolean {
  const role =
    user.login.toLowerCase() === repo.owner.login.toLowerCase()
      ? 'admin'
      : repo.roles.get(user.login.toLowerCase());
  return role === 'admin' || role === 'maintain' || role === 'write';
}

function rootValue(
  core: Core,
  viewer: Account,
  token: TokenInfo | undefined,
): Record<string, unknown> {
  const mayChange = (mutation: string, repo: Repo): void =>
    checkAccess(core, token, repo, GRAPHQL_MUTATION_PERMISSIONS[mutation], 'Repository');
  const queueCall = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof QueueError) throw new GitHubGraphQLError(error.message, error.type);
      throw error;
    }
  };
  // Resolving needs write access to the repository (a reader's viewerCanResolve is false).
  const setResolved = (
    input: { threadId: string; clientMutationId?: string },
    by: Account | null,
  ): GqlObject => {
    const found = findThread(core, input.threadId);
    if (!found)
      throw new GitHubGraphQLError(
        `Could not resolve to a node with the global id of '${input.threadId}'`,
        'NOT_FOUND',
      );
    const mutation = by ? 'resolveReviewThread' : 'unresolveReviewThread';
    mayChange(mutation, found.repo);
    if (token?.kind !== 'installation' && !mayWrite(found.repo, viewer))
      throw new GitHubGraphQLError(
        `${viewer.login} does not have permission to resolve review threads.`,
        'FORBIDDEN',
      );
    resolveThread(found.thread, by);
    core.changed('review-thread', { repo: found.repo.fullName, id: found.thread.id });
    return {
      __typename: by ? 'ResolveReviewThreadPayload' : 'UnresolveReviewThreadPayload',
      clientMutationId: input.clientMutationId ?? null,
      thread: threadNode(core, found.repo, found.pull, found.thread),
    };
  };
  return {
    // An installation token's viewer keeps REST's `<slug>[bot]` login.
    viewer: { ...actorNode(viewer), login: viewer.login },
    rateLimit: {
      __typename: 'RateLimit',
      cost: 1,
      limit: 5000,
      remaining: 4999,
      used: 1,
      nodeCount: 1,
      resetAt: new Date(Date.now() + 3_600_000).toISOString(),
    },
    repository: (args: { owner: string; name: string }) => {
      const repo = core.findRepo(`${args.owner}/${args.name}`);
      if (!repo)
        throw new GitHubGraphQLError(
          `Could not resolve to a Repository with the name '${args.owner}/${args.name}'.`,
          'NOT_FOUND',
        );
      return repositoryNode(core, repo);
    },
    node: (args: { id: string }) => findNode(core, args.id),
    enqueuePullRequest: (args: {
      input: { pullRequestId: string; expectedHeadOid?: string; clientMutationId?: string };
    }) =>
      queueCall(() => {
        const found = findPullByNodeId(core, args.input.pullRequestId);
        if (!found)
          throw new GitHubGraphQLError(
            `Could not resolve to a node with the global id of '${args.input.pullRequestId}'`,
            'NOT_FOUND',
          );
        mayChange('enqueuePullRequest', found.repo);
        const { entry } = enqueue(core, found.repo, found.pull, viewer, args.input.expectedHeadOid);
        const queue = found.repo.mergeQueues.get(found.pull.baseRef);
        return {
          __typename: 'EnqueuePullRequestPayload',
          clientMutationId: args.input.clientMutationId ?? null,
          mergeQueueEntry: queue ? entryNode(core, found.repo, queue, entry) : null,
        };
      }),
    resolveReviewThread: (args: { input: { threadId: string; clientMutationId?: string } }) =>
      setResolved(args.input, viewer),
    unresolveReviewThread: (args: { input: { threadId: string; clientMutationId?: string } }) =>
      setResolved(args.input, null),
    dequeuePullRequest: (args: { input: { id: string; clientMutationId?: string } }) =>
      queueCall(() => {
        const found = findPullByNodeId(core, args.input.id);
        if (!found)
          throw new GitHubGraphQLError(
            `Could not resolve to a node with the global id of '${args.input.id}'`,
            'NOT_FOUND',
          );
        mayChange('dequeuePullRequest', found.repo);
        const queue = found.repo.mergeQueues.get(found.pull.baseRef);
        const entry = queue?.entries.find((e) => e.pull === found.pull);
        const snapshot = entry && queue ? entryNode(core, found.repo, queue, entry) : null;
        dequeue(core, found.repo, found.pull, viewer);
        return {
          __typename: 'DequeuePullRequestPayload',
          clientMutationId: args.input.clientMutationId ?? null,
          mergeQueueEntry: snapshot,
        };
      }),
  };
}

function gqlErrors(errors: readonly GraphQLError[]): Record<string, unknown>[] {
  return errors.map((e) => {
    const original = e.originalError;
    const out: Record<string, unknown> = { message: e.message };
    if (original instanceof GitHubGraphQLError) out['type'] = original.type;
    if (e.path) out['path'] = e.path;
    if (e.locations) out['locations'] = e.locations;
    return out;
  });
}

// A client sends the same few queries over and over (variables differ): each query text is
// validated against GitHub's schema and parsed once, within a bound.
const checkedQueries = new Map<
  string,
  { problems: readonly GraphQLError[]; document: DocumentNode | null }
>();
const QUERIES_KEPT = 500;

function checkedQuery(query: string): {
  problems: readonly GraphQLError[];
  document: DocumentNode | null;
} {
  let checked = checkedQueries.get(query);
  if (!checked) {
    let problems: readonly GraphQLError[];
    try {
      problems = validateAgainstGitHub(query);
    } catch (error) {
      problems = [error instanceof GraphQLError ? error : new GraphQLError(String(error))];
    }
    checked = { problems, document: problems.length > 0 ? null : parse(query) };
    if (checkedQueries.size >= QUERIES_KEPT) checkedQueries.clear();
    checkedQueries.set(query, checked);
  }
  return checked;
}

export async function handleGraphql(call: GraphqlCall): Promise<ApiResponse> {
  const { core } = call;
  const body = (call.body ?? {}) as {
    query?: unknown;
    variables?: unknown;
    operationName?: unknown;
  };
  if (typeof body.query !== 'string') {
    core.violation('graphql-invalid', 'POST', '/graphql', 'request has no query string');
    return { status: 400, body: { message: 'Problems parsing JSON' } };
  }
  const { problems, document } = checkedQuery(body.query);
  if (!document) {
    core.violation(
      'graphql-invalid',
      'POST',
      '/graphql',
      problems.map((p) => p.message).join('; '),
    );
    return { status: 200, body: { errors: gqlErrors(problems) } };
  }
  const viewer = call.auth.actor ?? core.app.bot;
  const token = call.auth.token ? core.tokens.get(call.auth.token) : undefined;
  // A field the client asks for but the double does not model is a gap to fix, not a null.
  const fieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, _ctx, info) => {
    const obj = source as Record<string, unknown> | null;
    if (!obj || typeof obj !== 'object') return null;
    if (!(info.fieldName in obj)) {
      core.violation(
        'graphql-unimplemented',
        'POST',
        '/graphql',
        `${info.parentType.name}.${info.fieldName} is not modelled by the double`,
      );
      return null;
    }
    const value = obj[info.fieldName];
    const result: unknown =
      typeof value === 'function' ? (value as (a: unknown) => unknown)(args) : value;
    checkRead(core, token, result);
    return result;
  };
  const result = await execute({
    schema: githubSchema(),
    document,
    rootValue: rootValue(core, viewer, token),
    variableValues: (body.variables ?? {}) as Record<string, unknown>,
    operationName: typeof body.operationName === 'string' ? body.operationName : null,
    fieldResolver,
  });
  for (const e of result.errors ?? []) {
    if (!(e.originalError instanceof GitHubGraphQLError)) {
      core.violation('graphql-unimplemented', 'POST', '/graphql', e.message);
    }
  }
  const out: Record<string, unknown> = { data: result.data ?? null };
  if (result.errors) out['errors'] = gqlErrors(result.errors);
  if (/^\s*mutation\b/.test(body.query) && !result.errors) core.changed('graphql-mutation');
  return { status: 200, body: out };
}
