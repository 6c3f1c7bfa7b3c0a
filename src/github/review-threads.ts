import type { ProbotOctokit } from 'probot';
import {
  REVIEW_THREAD_COMMENT_PAGE,
  REVIEW_THREAD_COMMENTS,
  REVIEW_THREADS_READ_MAX,
  type RepoCoords,
  type ReviewThreadComment,
  type ReviewThreadInfo,
  type ReviewThreads,
} from './port.js';

type Octokit = InstanceType<typeof ProbotOctokit>;

// Threads per GraphQL page, and pages read at most: a PR with more threads than this is read
// from its newest, and the rest counted as unread.
const PAGE = 50;
const MAX_PAGES = REVIEW_THREADS_READ_MAX / PAGE;

const COMMENT_FIELDS = 'fullDatabaseId body url diffHunk createdAt author { __typename login }';

const QUERY = `query($owner: String!, $name: String!, $number: Int!, $last: Int!, $before: String, $comments: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(last: $last, before: $before) {
        totalCount
        pageInfo { hasPreviousPage startCursor }
        nodes {
          id isResolved isOutdated path line startLine originalLine originalStartLine diffSide
          comments(first: $comments) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ${COMMENT_FIELDS} }
          }
        }
      }
    }
  }
}`;

const MORE_COMMENTS = `query($id: ID!, $first: Int!, $after: String) {
  node(id: $id) {
    ... on PullRequestReviewThread {
      comments(first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes { ${COMMENT_FIELDS} }
      }
    }
  }
}`;

type RawComment = RawThread['comments']['nodes'][number];

interface CommentPage {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  nodes: RawComment[];
}

interface RawThread {
  id: string;
  isResolved: boolean;
  isOutdated: boolean;
  path: string;
  line: number | null;
  startLine: number | null;
  originalLine: number | null;
  originalStartLine: number | null;
  diffSide: 'LEFT' | 'RIGHT';
  comments: {
    totalCount: number;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    nodes: Array<{
      /** GraphQL's BigInt, as a string: the comment's REST id. */
      fullDatabaseId: string | null;
      body: string;
      url: string;
      diffHunk: string;
      createdAt: string;
      /** A bot's login is its App's slug, without REST's `[bot]`: only `__typename` says Bot. */
      author: { __typename: string; login: string } | null;
    }>;
  };
}

interface Answer {
  repository: {
    pullRequest: {
      reviewThreads: {
        totalCount: number;
        pageInfo: { hasPreviousPage: boolean; startCursor: string | null };
        nodes: RawThread[];
      };
    } | null;
  } | null;
}

function toThread(raw: RawThread): ReviewThreadInfo {
  const first = raw.comments.nodes[0];
  return {
    id: raw.id,
    isResolved: raw.isResolved,
    isOutdated: raw.isOutdated,
    path: raw.path,
    line: raw.line,
    startLine: raw.startLine,
    originalLine: raw.originalLine,
    originalStartLine: raw.originalStartLine,
    diffSide: raw.diffSide,
    diffHunk: first?.diffHunk ?? '',
    url: first?.url ?? '',
    firstCommentId: first?.fullDatabaseId ? Number(first.fullDatabaseId) : null,
    comments: raw.comments.nodes.map(toComment),
    commentsLeftOut: Math.max(raw.comments.totalCount - raw.comments.nodes.length, 0),
    laterComments: laterCursor(raw.comments),
  };
}

function laterCursor(page: CommentPage): string | null {
  return page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
}

function toComment(c: RawComment): ReviewThreadComment {
  return {
    // A deleted account shows as GitHub's "ghost".
    author: c.author?.login ?? 'ghost',
    authorIsBot: c.author?.__typename === 'Bot',
    body: c.body,
    url: c.url,
    createdAt: c.createdAt,
  };
}

/** See GitHubPort.reviewThreads: pages backwards from the newest thread (`last`/`before`). */
export async function readReviewThreads(
  octokit: Octokit,
  repo: RepoCoords,
  prNumber: number,
  options: { limit: number; includeResolved?: boolean },
): Promise<ReviewThreads> {
  const limit = Math.max(Math.floor(options.limit), 0);
  const threads: ReviewThreadInfo[] = [];
  let examined = 0;
  let total = 0;
  let matchingBeyond = 0;
  let before: string | null = null;
  for (let page = 0; page < MAX_PAGES && limit > 0; page++) {
    const answer: Answer = await octokit.graphql<Answer>(QUERY, {
      owner: repo.owner,
      name: repo.repo,
      number: prNumber,
      last: PAGE,
      before,
      comments: REVIEW_THREAD_COMMENTS,
    });
    const connection = answer.repository?.pullRequest?.reviewThreads;
    if (!connection || !Array.isArray(connection.nodes))
      throw new Error(`review threads of #${prNumber}: GitHub answered without the pull request`);
    total = connection.totalCount;
    for (const raw of [...connection.nodes].reverse()) {
      examined += 1;
      if (raw.isResolved && !options.includeResolved) continue;
      if (threads.length >= limit) {
        matchingBeyond += 1;
        continue;
      }
      threads.push(toThread(raw));
    }
    if (!connection.pageInfo.hasPreviousPage || threads.length >= limit) break;
    before = connection.pageInfo.startCursor;
  }
  const unread = Math.max(total - examined, 0);
  return { threads, leftOut: matchingBeyond + unread, unread };
}

/** See GitHubPort.laterReviewComments: pages forwards (`first`/`after`). */
export async function readLaterComments(
  octokit: Octokit,
  thread: ReviewThreadInfo,
  pages: number,
): Promise<Pick<ReviewThreadInfo, 'comments' | 'commentsLeftOut' | 'laterComments'>> {
  const comments = [...thread.comments];
  let { commentsLeftOut, laterComments } = thread;
  for (let read = 0; laterComments !== null && read < pages; read++) {
    const answer: { node: { comments?: CommentPage } | null } = await octokit.graphql(
      MORE_COMMENTS,
      { id: thread.id, first: REVIEW_THREAD_COMMENT_PAGE, after: laterComments },
    );
    const page = answer.node?.comments;
    if (!page || !Array.isArray(page.nodes))
      throw new Error(`review thread ${thread.id}: GitHub answered without its comments`);
    comments.push(...page.nodes.map(toComment));
    commentsLeftOut = Math.max(page.totalCount - comments.length, 0);
    laterComments = laterCursor(page);
  }
  return { comments, commentsLeftOut, laterComments };
}
