import { parsePlanMarker } from '../../protocol/markers.js';
import { parseCommands } from './parse-commands.js';
import type { ParsedCommand } from './types.js';

/** What a new issue or PR comment says, as far as deciding whether it asks anything of us. */
export interface CommentFacts {
  body: string | null;
  authorLogin: string | undefined;
  /** The sender or the comment's author is a bot: bots never give commands. */
  fromBot: boolean;
  /** The comment's author is a bot account (`user.type` is `Bot`). */
  authorIsBot: boolean;
  /** `performed_via_github_app.id`: the App whose token wrote it. */
  viaAppId: number | undefined;
  onPullRequest: boolean;
}

export type CommentIntent =
  | { kind: 'plan'; workflowRunId: number }
  | { kind: 'commands'; parsed: ParsedCommand[] }
  | { kind: 'none' };

const NONE: CommentIntent = { kind: 'none' };

/**
 * A bot's comment counts only as the planner's plan (on the issue, with the plan marker, written
 * by this App itself); a person's only by the commands in it. `appId` is this App's id.
 */
export function commentIntent(comment: CommentFacts, appId: number | undefined): CommentIntent {
  if (comment.fromBot) {
    if (comment.onPullRequest || !isThisAppsOwn(comment, appId)) return NONE;
    const workflowRunId = parsePlanMarker(comment.body);
    return workflowRunId === undefined ? NONE : { kind: 'plan', workflowRunId };
  }
  const parsed = parseCommands(
    comment.body ?? '',
    comment.onPullRequest ? 'pull_request' : 'issue',
  );
  return parsed.length === 0 ? NONE : { kind: 'commands', parsed };
}

/**
 * Written by this App with its installation token (docs/lifecycle.md step 2): the author is the
 * App's bot account and GitHub names this App in `performed_via_github_app`. The Actions bot
 * (`github-actions[bot]`, whose comments GitHub marks as performed by the `github-actions` App)
 * and every other App are not this App, and a person acting through an App is no bot.
 */
function isThisAppsOwn(comment: CommentFacts, appId: number | undefined): boolean {
  return appId !== undefined && comment.authorIsBot && comment.viaAppId === appId;
}

/** The facts of an `issue_comment` payload, read defensively: it may be any JSON at ingest. */
export function commentFactsOf(payload: Record<string, unknown>): CommentFacts {
  const comment = record(payload.comment);
  const user = record(comment.user);
  const sender = record(payload.sender);
  const via = record(comment.performed_via_github_app);
  return {
    body: typeof comment.body === 'string' ? comment.body : null,
    authorLogin: typeof user.login === 'string' ? user.login : undefined,
    fromBot: sender.type === 'Bot' || user.type === 'Bot',
    authorIsBot: user.type === 'Bot',
    viaAppId: typeof via.id === 'number' ? via.id : undefined,
    onPullRequest: Boolean(record(payload.issue).pull_request),
  };
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
