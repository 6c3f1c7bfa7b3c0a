import { decideLookAlikePull } from '../core/lifecycle/index.js';
import type { RoleName } from '../core/roles.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { Engine } from './context.js';
import { roleOf } from './roles.js';

/** What a PR event refused, for the caller to record in the command log and answer. */
export interface PullRefusal {
  /** The command log's name for it. */
  name: 'close' | 'open';
  runId: number | null;
  role: RoleName;
  reason: string;
}

/**
 * An open PR from a task branch that the App did not open: its author's role is read and core's
 * decideLookAlikePull says whether it is closed (docs/worker.md, "Pull request markers").
 */
export async function onLookAlikePull(
  engine: Engine,
  { port, repo }: { port: GitHubPort; repo: RepoCoords },
  pull: { number: number; state: string; userLogin: string; headRef: string },
): Promise<PullRefusal | undefined> {
  const log = engine.log.child({ pr: pull.number, branch: pull.headRef, author: pull.userLogin });
  if (!repo.owner || !repo.repo) return undefined;
  const role = await roleOf(engine, port, repo, pull.userLogin);
  let refusal: PullRefusal | undefined;
  for (const effect of decideLookAlikePull(pull, role)) {
    switch (effect.kind) {
      case 'none':
        log.warn(
          { why: effect.reason },
          "a PR on a task branch that the App did not open: not the task's",
        );
        break;
      case 'close': {
        const closed = await port.setPullState(repo, pull.number, 'closed');
        log.warn({ role, closed }, 'a PR on a task branch that the App did not open: closed');
        break;
      }
      case 'refuse':
        refusal = { name: 'open', runId: null, role: effect.role, reason: effect.reason };
        break;
    }
  }
  return refusal;
}
