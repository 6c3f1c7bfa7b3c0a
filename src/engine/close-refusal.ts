import { closeRefusalReason } from '../core/lifecycle/index.js';
import type { RoleName } from '../core/roles.js';
import type { CommandRow } from '../store/commands.js';
import type { Engine } from './context.js';

/** Who closed an agent PR, and the delivery that told: a refused close is recorded under it. */
export interface ClosedBy {
  login: string;
  isBot: boolean;
  deliveryId: string;
  /** The command log's key for the close, which has no comment (handlers' labelRefusalKey). */
  refusalKey: number;
}

/**
 * A close by someone below write, recorded refused with whether the refusal budget answers it
 * (docs/commands.md, "Answers"). Only an answered close is opened again, and each reopen is a
 * write and a run of the PR's workflows: so it is decided as the refusal is recorded, in one step
 * under the installation's lock (CommandStore.recordRefusal), and closes handled at once in
 * several repositories share the budget. A redelivery finds the row and its decision.
 */
export function recordRefusedClose(
  engine: Engine,
  close: { repositoryId: number; number: number; runId: number; role: RoleName },
  closedBy: ClosedBy,
): Promise<{ row: CommandRow; answered: boolean; recordedBefore: boolean }> {
  return engine.store.commands.recordRefusal(
    {
      repositoryId: close.repositoryId,
      issueNumber: close.number,
      commentId: closedBy.refusalKey,
      runId: close.runId,
      ordinal: 0,
      actorLogin: closedBy.login,
      permission: close.role,
      name: 'close',
      args: {},
      deliveryId: closedBy.deliveryId,
      createdAt: engine.now(),
    },
    {
      reason: (answered) => closeRefusalReason(close.role, answered ? 'reopened' : 'left_closed'),
      answerable: true,
    },
  );
}
