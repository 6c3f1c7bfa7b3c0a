import { parsePlanMarker } from '../../protocol/markers.js';
import { parseCommands } from './parse-commands.js';
import type { ParsedCommand } from './types.js';

/**
 * Who may post a plan for the planner job (docs/lifecycle.md): the Actions bot, or the App itself
 * (a planner job that comments with the App's token), known by `performed_via_github_app`.
 */
const PLANNER_AUTHORS = new Set(['github-actions[bot]']);

/** What a new issue or PR comment says, as far as deciding whether it asks anything of us. */
export interface CommentFacts {
  body: string | null;
  authorLogin: string | undefined;
  /** The sender or the comment's author is a bot: bots never give commands. */
  fromBot: boolean;
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
 * A bot's comment counts only as the planner's plan (on the issue, by the planner's author, with
 * the plan marker); a person's only by the commands in it. `appId` is this App's id.
 */
export function commentIntent(comment: CommentFacts, appId: number | undefined): CommentIntent {
  if (comment.fromBot) {
    const byThisApp = appId !== undefined && comment.viaAppId === appId;
    if (comment.onPullRequest || !(byThisApp || PLANNER_AUTHORS.has(comment.authorLogin ?? '')))
      return NONE;
    const workflowRunId = parsePlanMarker(comment.body);
    return workflowRunId === undefined ? NONE : { kind: 'plan', workflowRunId };
  }
  const parsed = parseCommands(
    comment.body ?? '',
    comment.onPullRequest ? 'pull_request' : 'issue',
  );
  return parsed.length === 0 ? NONE : { kind: 'commands', parsed };
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
    viaAppId: typeof via.id === 'number' ? via.id : undefined,
    onPullRequest: Boolean(record(payload.issue).pull_request),
  };
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
