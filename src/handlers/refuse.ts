import type { RoleName } from '../core/roles.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { AppServices } from './app-services.js';
import { labelRefusalKey } from './refusal-budget.js';
import { postAnswer } from './post-answer.js';

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
  const key = labelRefusalKey(refusal.deliveryId);
  const { answered, recordedBefore } = await services.store.commands.recordRefusal(
    {
      repositoryId: refusal.repositoryId,
      issueNumber: refusal.issueNumber,
      commentId: key,
      runId: refusal.runId,
      ordinal: 0,
      actorLogin: refusal.actor,
      permission: refusal.role,
      name: refusal.name,
      args: refusal.args,
      deliveryId: refusal.deliveryId,
      createdAt: services.engine.now(),
    },
    { reason: refusal.reason, answerable: refusal.reply !== null },
  );
  if (!answered || refusal.reply === null || !repo.owner || !repo.repo) return;
  await postAnswer(port, repo, refusal.issueNumber, {
    key,
    text: `@${refusal.actor} ${refusal.reply}`,
    handledBefore: recordedBefore,
  });
}
