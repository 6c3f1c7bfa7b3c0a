import { parseReplyMarker } from '../protocol/markers.js';
import { quoteEvidence, withoutUnprovenQuotes } from './quoted-text.js';

/**
 * Which review comments a `fix` attempt is given (docs/lifecycle.md, "Reviews"): only what
 * people with write access wrote reaches the agent. Everything else is left out, and counted,
 * so the prompt can say how much.
 */

/** A review comment as vetting sees it. */
export interface VettableComment {
  author: string;
  authorIsBot: boolean;
  body: string;
}

export type CommentVerdict =
  /** A person with write, maintain or admin permission wrote it: sent. */
  | 'kept'
  /** A person without write access (or a deleted account): left out and counted. */
  | 'no_write_access'
  /** A bot (an App, `github-actions`): never a person with write access; left out and counted. */
  | 'bot'
  /**
   * A bot's comment carrying the worker's reply marker: an earlier attempt's answer to the
   * thread ("Addressed in …"), which says nothing a reviewer asked for. Left out, not counted.
   */
  | 'worker_reply';

/** `writers`: the lower-cased logins of the people who hold write access or more. */
function commentVerdict(comment: VettableComment, writers: ReadonlySet<string>): CommentVerdict {
  if (comment.authorIsBot) return parseReplyMarker(comment.body) ? 'worker_reply' : 'bot';
  return writers.has(comment.author.toLowerCase()) ? 'kept' : 'no_write_access';
}

/** The people whose permission vetting needs: each comment's author once, bots never asked. */
export function loginsToVet(
  threads: ReadonlyArray<{ comments: readonly VettableComment[] }>,
): string[] {
  const logins = new Map<string, string>();
  for (const thread of threads)
    for (const c of thread.comments)
      if (!c.authorIsBot && !logins.has(c.author.toLowerCase()))
        logins.set(c.author.toLowerCase(), c.author);
  return [...logins.values()];
}

/**
 * The feedback a writer asked for, as the agent may be given it: the threads with only their kept
 * comments, in their order (a thread left with none is dropped whole), and `texts`, what the writer
 * sent them with (the review's body, `/retry` feedback). `omittedComments` counts the comments left
 * out but the worker's own replies, and a thread's comments that were not read (`commentsLeftOut`),
 * whoever wrote them. In every kept comment and text, a quote that is not provably a writer's is
 * left out (quoted-text.ts): it is looked for in the kept comments, the texts and the kept threads'
 * diff hunks.
 */
export function vetFeedback<
  C extends VettableComment,
  T extends { comments: readonly C[]; commentsLeftOut?: number; diffHunk?: string },
>(
  threads: readonly T[],
  writers: ReadonlySet<string>,
  texts: readonly string[],
): {
  threads: Array<T & { comments: C[] }>;
  omittedComments: number;
  texts: string[];
} {
  const kept: Array<T & { comments: C[] }> = [];
  let omittedComments = 0;
  for (const thread of threads) {
    omittedComments += thread.commentsLeftOut ?? 0;
    const comments: C[] = [];
    for (const comment of thread.comments) {
      const verdict = commentVerdict(comment, writers);
      if (verdict === 'kept') comments.push(comment);
      else if (verdict !== 'worker_reply') omittedComments += 1;
    }
    if (comments.length > 0) kept.push({ ...thread, comments });
  }
  const evidence = quoteEvidence(
    [...texts, ...kept.flatMap((t) => t.comments.map((c) => c.body))],
    kept.flatMap((t) => (t.diffHunk ? [t.diffHunk] : [])),
  );
  const vetted = (text: string) => withoutUnprovenQuotes(text, evidence);
  return {
    threads: kept.map((t) => ({
      ...t,
      comments: t.comments.map((c) => ({ ...c, body: vetted(c.body) })),
    })),
    omittedComments,
    texts: texts.map(vetted),
  };
}

/**
 * How many further pages of comments (`pageSize` each) each thread's read gets, at most `budget`
 * in all; threads not in the map get none. Threads a person with write access took part in (a
 * kept comment among those read) come first, then the others, each newest first, and one page
 * goes to each in turn, so no thread's replies take every read. Anyone can start threads and
 * reply in them on a public repository's PR: read newest first, each whole, an outsider's twenty
 * long threads took every read, and a maintainer's later reply in an older thread was left out.
 */
export function laterCommentPages<
  T extends { comments: readonly VettableComment[]; commentsLeftOut: number },
>(
  threads: readonly T[],
  writers: ReadonlySet<string>,
  { budget, pageSize }: { budget: number; pageSize: number },
): Map<T, number> {
  const pages = new Map<T, number>();
  const takesPart = (t: T) => t.comments.some((c) => commentVerdict(c, writers) === 'kept');
  let left = Math.max(Math.floor(budget), 0);
  for (const group of [threads.filter(takesPart), threads.filter((t) => !takesPart(t))]) {
    const needs = group.map((t) => Math.ceil(Math.max(t.commentsLeftOut, 0) / pageSize));
    for (let round = 1; left > 0 && needs.some((n) => n >= round); round++)
      for (const [i, thread] of group.entries())
        if (left > 0 && needs[i]! >= round) {
          pages.set(thread, round);
          left -= 1;
        }
  }
  return pages;
}
