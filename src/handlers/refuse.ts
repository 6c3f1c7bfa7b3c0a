import { NOT_ANSWERED } from '../core/commands/index.js';
import type { RoleName } from '../core/roles.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { AppServices } from './app-services.js';
import { labelRefusalKey, mayAnswerRefusal } from './refusal-budget.js';

/**
 * An issue or PR event from someone below write answered as a refused command is: recorded in the
 * command log, and answered within the same budget (docs/commands.md, "Answers") unless `reply`
 * is null.
 */
export async function refuse(
  services: AppServices,
  port: GitHubPort,
  repo: RepoCoords,
  refusal: {
    repositoryId: number;
    issueNumber: number;
    actor: string;
    role: RoleName;
    deliveryId: string;
    name: string;
    args: Record<string, unknown>;
    reason: string;
    reply: string | null;
    runId: number | null;
  },
): Promise<void> {
  const now = services.engine.now();
  const commentId = labelRefusalKey(refusal.deliveryId);
  const answer =
    refusal.reply !== null &&
    (await mayAnswerRefusal(services.store, { ...refusal, commentId }, now));
  await services.store.commands.record({
    repositoryId: refusal.repositoryId,
    issueNumber: refusal.issueNumber,
    commentId,
    runId: refusal.runId,
    ordinal: 0,
    actorLogin: refusal.actor,
    permission: refusal.role,
    name: refusal.name,
    args: refusal.args,
    accepted: false,
    outcome: `${refusal.reason}${answer ? '' : NOT_ANSWERED}`,
    createdAt: now,
  });
  if (answer && repo.owner && repo.repo)
    await port.createIssueComment(repo, refusal.issueNumber, `@${refusal.actor} ${refusal.reply}`);
}
