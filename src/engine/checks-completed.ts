import type { ActionsRunOrigin, CheckedPull } from '../core/merge/index.js';
import { decideChecksCompleted, namedAgentPulls } from '../core/merge/index.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import { loadRunScope, type Engine } from './context.js';
import { advanceRun } from './merge/index.js';
import { onPullRequestChanged } from './track.js';

/**
 * Checks finished on a head: read the agent PRs recorded at that head and those the delivery
 * names, with their runs; core says which PRs moved without their push's delivery and which runs
 * decide again (`decideChecksCompleted`); apply. A moved PR is handled as its push would be
 * (`onPullRequestChanged`), which reads it by number: GitHub's head, not the payload's, is
 * recorded.
 */
export async function onChecksCompleted(
  engine: Engine,
  port: GitHubPort,
  event: {
    repositoryId: number;
    repo: RepoCoords;
    sha: string;
    pulls: readonly CheckedPull[];
    /** The check suite of a GitHub Actions result: its workflow run says where it came from. */
    actionsCheckSuite: number | null;
  },
): Promise<void> {
  const checked = { repositoryId: event.repositoryId, pulls: event.pulls };
  const numbers = namedAgentPulls(checked);
  const rows = await engine.store.pulls.withHead(event.repositoryId, event.sha, numbers);
  const found = rows.filter((r) => r.pull.headSha === event.sha);
  const named = rows.filter((r) => numbers.includes(r.pull.number));
  const runs = new Map(rows.map((f) => [f.run.id, f.run]));
  const actionsRun = await actionsRunOf(engine, port, event, rows.length > 0);
  const effects = decideChecksCompleted(
    {
      ...(actionsRun && { actionsRun }),
      runs: found.map((f) => ({ runId: f.run.id, finished: f.run.finishedAt !== null })),
      named: named.map(({ pull, run }) => ({
        number: pull.number,
        runId: run.id,
        runFinished: run.finishedAt !== null,
        state: pull.state,
        merged: pull.merged,
        recordedHead: pull.headSha,
      })),
    },
    checked,
  );
  for (const effect of effects) {
    switch (effect.kind) {
      case 'none':
        engine.log.debug({ sha: event.sha, why: effect.reason }, 'checks completed: nothing to do');
        break;
      case 'headMoved': {
        const { pull } = named.find((n) => n.pull.number === effect.pr)!;
        // As recorded: onPullRequestChanged reads the PR and records the head GitHub shows.
        await onPullRequestChanged(engine, port, event.repo, event.repositoryId, {
          number: pull.number,
          nodeId: pull.nodeId ?? '',
          // Recorded, so opened by the App (linkPullRequest records no other); read again there.
          userLogin: await engine.appLogin(),
          headRef: pull.headRef,
          headSha: pull.headSha,
          headRepoId: pull.repositoryId,
          baseRef: pull.baseRef,
          state: pull.state,
          merged: pull.merged,
        });
        break;
      }
      case 'advance': {
        const run = runs.get(effect.runId);
        if (run) await advanceRun(engine, await loadRunScope(engine, run, port));
        break;
      }
    }
  }
}

/**
 * The workflow run behind a GitHub Actions result, read only when an agent PR is at stake. One
 * GitHub does not list is an error: the delivery is handled again later.
 */
async function actionsRunOf(
  engine: Engine,
  port: GitHubPort,
  event: { repo: RepoCoords; actionsCheckSuite: number | null },
  atStake: boolean,
): Promise<ActionsRunOrigin | undefined> {
  if (event.actionsCheckSuite === null || !atStake) return undefined;
  // Remembered for the merge decision that follows, which reads the same head's checks.
  const key = String(event.actionsCheckSuite);
  const remembered = engine.memory.actionsRunOrigins.get(key);
  if (remembered) return remembered;
  const run = await port.actionsRunOfSuite(event.repo, event.actionsCheckSuite);
  if (!run)
    throw new Error(`GitHub lists no workflow run of check suite ${event.actionsCheckSuite}`);
  engine.memory.actionsRunOrigins.set(key, run);
  return run;
}
