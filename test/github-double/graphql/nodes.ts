import type { Core } from '../core.js';
import type {
  Account,
  MergeQueue,
  MergeQueueEntry,
  Pull,
  Repo,
  ReviewComment,
  ReviewThread,
} from '../model.js';
import { mergeability } from '../ops/mergeability.js';
import { threadLines } from '../ops/review-threads.js';
import { authorAssociation } from '../render/issues.js';
import { repoHtmlUrl } from '../render/repos.js';
import { reviewCommentHtmlUrl } from '../render/review-comments.js';

// GraphQL objects as plain records; function-valued fields receive the field arguments.
export type GqlObject = { __typename: string } & Record<string, unknown>;

// The repository an object belongs to, for the permission check (not a GraphQL field).
const OWNING_REPO: unique symbol = Symbol('owning repository');

function owned<T extends GqlObject>(repo: Repo, node: T): T {
  Object.defineProperty(node, OWNING_REPO, { value: repo, enumerable: false });
  return node;
}

export function owningRepo(value: unknown): Repo | undefined {
  return value && typeof value === 'object'
    ? ((value as Record<symbol, unknown>)[OWNING_REPO] as Repo | undefined)
    : undefined;
}

// Errors GitHub itself would answer with (type is GitHub's error type).
export class GitHubGraphQLError extends Error {
  constructor(
    message: string,
    readonly type: string,
  ) {
    super(message);
  }
}

interface ConnectionArgs {
  first?: number;
  last?: number;
  after?: string;
  before?: string;
}

function cursorIndex(cursor: string): number {
  return Number(Buffer.from(cursor, 'base64').toString().replace('cursor:', ''));
}

export function connection(items: GqlObject[], args: ConnectionArgs): GqlObject {
  const start = args.after ? cursorIndex(args.after) + 1 : 0;
  const end = args.before ? cursorIndex(args.before) : items.length;
  let slice = items.slice(start, Math.max(start, end));
  if (args.first !== undefined) slice = slice.slice(0, args.first);
  if (args.last !== undefined) slice = slice.slice(-args.last);
  const cursor = (i: number): string => Buffer.from(`cursor:${i}`).toString('base64');
  const offset = slice.length > 0 ? items.indexOf(slice[0] as GqlObject) : start;
  return {
    __typename: 'Connection',
    totalCount: items.length,
    nodes: slice,
    edges: slice.map((node, i) => ({ __typename: 'Edge', cursor: cursor(offset + i), node })),
    pageInfo: {
      __typename: 'PageInfo',
      hasNextPage: offset + slice.length < items.length,
      hasPreviousPage: offset > 0,
      startCursor: slice.length > 0 ? cursor(offset) : null,
      endCursor: slice.length > 0 ? cursor(offset + slice.length - 1) : null,
    },
  };
}

export function actorNode(a: Account): GqlObject {
  return {
    __typename: a.type === 'Bot' ? 'Bot' : a.type === 'Organization' ? 'Organization' : 'User',
    // GraphQL names a bot by its App's slug: `github-actions`, where REST says `github-actions[bot]`.
    login: a.type === 'Bot' ? a.login.replace(/\[bot\]$/, '') : a.login,
    id: a.nodeId,
    databaseId: a.id,
  };
}

export function repositoryNode(core: Core, repo: Repo): GqlObject {
  return owned(repo, {
    __typename: 'Repository',
    id: repo.nodeId,
    databaseId: repo.id,
    name: repo.name,
    nameWithOwner: repo.fullName,
    owner: actorNode(repo.owner),
    isPrivate: repo.private,
    isFork: repo.fork,
    url: repoHtmlUrl(core, repo),
    defaultBranchRef: {
      __typename: 'Ref',
      name: repo.defaultBranch,
      prefix: 'refs/heads/',
      target: { __typename: 'Commit', oid: repo.refs.get(`heads/${repo.defaultBranch}`) },
    },
    mergeQueue: (args: { branch?: string }) => {
      const queue = repo.mergeQueues.get(args.branch ?? repo.defaultBranch);
      return queue ? mergeQueueNode(core, repo, queue) : null;
    },
    pullRequest: (args: { number: number }) => {
      const pull = repo.pulls.get(args.number);
      if (!pull)
        throw new GitHubGraphQLError(
          `Could not resolve to a PullRequest with the number of ${args.number}.`,
          'NOT_FOUND',
        );
      return pullNode(core, repo, pull);
    },
  });
}

export function pullNode(core: Core, repo: Repo, pull: Pull): GqlObject {
  // Computed once per node, and only when asked: a read consumes one lagging answer.
  let cached: ReturnType<typeof mergeability> | undefined;
  const m = (): ReturnType<typeof mergeability> => {
    if (cached) return cached;
    cached = mergeability(core, repo, pull);
    if (pull.unknownReads > 0) pull.unknownReads -= 1;
    return cached;
  };
  const queue = repo.mergeQueues.get(pull.baseRef);
  const entry = queue?.entries.find((e) => e.pull === pull);
  return owned(repo, {
    __typename: 'PullRequest',
    id: pull.nodeId,
    databaseId: pull.id,
    number: pull.number,
    title: pull.issue.title,
    body: pull.issue.body ?? '',
    url: `${repoHtmlUrl(core, repo)}/pull/${pull.number}`,
    state: pull.merged ? 'MERGED' : pull.issue.state === 'open' ? 'OPEN' : 'CLOSED',
    merged: pull.merged,
    closed: pull.issue.state === 'closed',
    isDraft: pull.draft,
    headRefName: pull.headRef,
    headRefOid: pull.headSha,
    baseRefName: pull.baseRef,
    baseRefOid: repo.refs.get(`heads/${pull.baseRef}`),
    mergeable: () => {
      const v = m().mergeable;
      return v === null ? 'UNKNOWN' : v ? 'MERGEABLE' : 'CONFLICTING';
    },
    mergeStateStatus: () => m().state.toUpperCase(),
    isInMergeQueue: entry !== undefined,
    mergeQueueEntry: entry && queue ? entryNode(core, repo, queue, entry) : null,
    author: actorNode(pull.issue.user),
    mergeCommit: pull.mergeCommitSha ? { __typename: 'Commit', oid: pull.mergeCommitSha } : null,
    createdAt: pull.issue.createdAt,
    updatedAt: pull.issue.updatedAt,
    repository: () => repositoryNode(core, repo),
    // Oldest first, as GitHub lists them: `last:` gives the newest.
    reviewThreads: (args: ConnectionArgs) =>
      connection(
        pull.threads.map((t) => threadNode(core, repo, pull, t)),
        args,
      ),
  });
}

export function threadNode(core: Core, repo: Repo, pull: Pull, thread: ReviewThread): GqlObject {
  const { line, startLine } = threadLines(thread);
  return owned(repo, {
    __typename: 'PullRequestReviewThread',
    id: thread.id,
    path: thread.path,
    line,
    startLine,
    originalLine: thread.originalLine,
    originalStartLine: thread.originalStartLine,
    diffSide: thread.side,
    startDiffSide: thread.startSide,
    isOutdated: thread.outdated,
    isResolved: thread.resolvedBy !== null,
    isCollapsed: thread.resolvedBy !== null,
    resolvedBy: thread.resolvedBy ? actorNode(thread.resolvedBy) : null,
    subjectType: 'LINE',
    pullRequest: () => pullNode(core, repo, pull),
    repository: () => repositoryNode(core, repo),
    comments: (args: ConnectionArgs) =>
      connection(
        thread.comments.map((c) => reviewCommentNode(core, repo, pull, thread, c)),
        args,
      ),
  });
}

function reviewCommentNode(
  core: Core,
  repo: Repo,
  pull: Pull,
  thread: ReviewThread,
  c: ReviewComment,
): GqlObject {
  const url = reviewCommentHtmlUrl(core, repo, pull, c.id);
  const { line, startLine } = threadLines(thread);
  return owned(repo, {
    __typename: 'PullRequestReviewComment',
    id: c.nodeId,
    databaseId: c.id,
    fullDatabaseId: String(c.id),
    body: c.body,
    bodyText: c.body,
    author: actorNode(c.user),
    authorAssociation: authorAssociation(repo, c.user),
    url,
    resourcePath: new URL(url).pathname + new URL(url).hash,
    diffHunk: c.diffHunk,
    path: thread.path,
    line,
    startLine,
    originalLine: thread.originalLine,
    originalStartLine: thread.originalStartLine,
    outdated: thread.outdated,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    publishedAt: c.createdAt,
    commit: { __typename: 'Commit', oid: c.commitId },
    originalCommit: { __typename: 'Commit', oid: thread.commitId },
    replyTo: () => {
      const parent = thread.comments.find((p) => p.id === c.inReplyTo);
      return parent ? reviewCommentNode(core, repo, pull, thread, parent) : null;
    },
    pullRequest: () => pullNode(core, repo, pull),
    repository: () => repositoryNode(core, repo),
  });
}

export function mergeQueueNode(core: Core, repo: Repo, queue: MergeQueue): GqlObject {
  return owned(repo, {
    __typename: 'MergeQueue',
    id: queue.id,
    url: `${repoHtmlUrl(core, repo)}/queue/${queue.branch}`,
    resourcePath: `/${repo.fullName}/queue/${queue.branch}`,
    nextEntryEstimatedTimeToMerge: null,
    repository: () => repositoryNode(core, repo),
    entries: (args: ConnectionArgs) =>
      connection(
        queue.entries.map((e) => entryNode(core, repo, queue, e)),
        args,
      ),
  });
}

export function entryNode(
  core: Core,
  repo: Repo,
  queue: MergeQueue,
  entry: MergeQueueEntry,
): GqlObject {
  return owned(repo, {
    __typename: 'MergeQueueEntry',
    id: entry.id,
    position: queue.entries.indexOf(entry) + 1,
    state: entry.state,
    enqueuedAt: entry.enqueuedAt,
    enqueuer: actorNode(entry.enqueuer),
    estimatedTimeToMerge: null,
    jump: false,
    solo: false,
    headCommit: { __typename: 'Commit', oid: entry.headOid },
    baseCommit: { __typename: 'Commit', oid: repo.refs.get(`heads/${queue.branch}`) },
    pullRequest: () => pullNode(core, repo, entry.pull),
    mergeQueue: () => mergeQueueNode(core, repo, queue),
  });
}
