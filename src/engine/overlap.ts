import type { GitHubPort, RepoCoords } from '../github/port.js';
import {
  decideOverlapWaits,
  overlapMayWait,
  RepoTree,
  type OverlapWaits,
  type WaitReason,
} from '../core/scheduler/index.js';
import type { RepositoryRow } from '../store/repositories.js';
import type { PathClaimantRow } from '../store/task-paths.js';
import type { Engine } from './context.js';

/**
 * Base branch → its head, read once per scheduling pass (shared with the dispatches) or per
 * sweep (shared with its status refreshes).
 */
export type BaseHeads = Map<string, Promise<string | null>>;

type Decide = (claimants: PathClaimantRow[]) => OverlapWaits;

/**
 * How the dispatch claim decides which ready tasks wait on an overlap of their files with a task
 * in flight's (docs/lifecycle.md, "Overlapping files"), or undefined when no ready task of the
 * repository claims paths (then nothing is read from GitHub and the claim is as without files).
 * Before the claim's lock: each base branch's head (one read per pass, shared with the
 * dispatches) and its tree (one `GET /git/trees/{sha}?recursive=1` per head, cached with the
 * claims worked out on it). Under the lock the claim reads the claimants again and core decides
 * on that read within a bounded number of steps (AttemptStore.claimDispatches), so two passes
 * never dispatch two overlapping tasks.
 */
export async function overlapDecision(
  engine: Engine,
  repository: RepositoryRow,
  baseHeads: BaseHeads,
): Promise<((claimants: PathClaimantRow[]) => number[]) | undefined> {
  const prepared = await prepare(engine, repository, baseHeads);
  if (!prepared) return undefined;
  const { decide } = prepared;
  return (claimants) => {
    const { blocked, steps } = decide(claimants);
    if (blocked.length > 0)
      engine.log.info(
        { repository: repository.id, blocked: blocked.length, steps },
        'tasks wait on overlapping files',
      );
    return blocked;
  };
}

/**
 * The overlap waits of one run's ready tasks, for its status comment: the claim's decision on
 * the claimants as read to prepare it, without the lock (the comment says why a task waited;
 * the claim is what holds it back).
 */
export async function overlapReasonsOf(
  engine: Engine,
  repository: RepositoryRow,
  runId: number,
  baseHeads: BaseHeads = new Map(),
): Promise<ReadonlyMap<string, WaitReason> | undefined> {
  const prepared = await prepare(engine, repository, baseHeads);
  if (!prepared) return undefined;
  return prepared.decide(prepared.claimants).reasons.get(runId);
}

/**
 * The repository's path claimants as read now, and the decision on claimants with the trees of
 * their base branches read; undefined when no ready task may wait on an overlap.
 */
async function prepare(
  engine: Engine,
  repository: RepositoryRow,
  baseHeads: BaseHeads,
): Promise<{ claimants: PathClaimantRow[]; decide: Decide } | undefined> {
  const rows = await engine.store.taskPaths.claimants(repository.id, engine.now());
  if (!overlapMayWait(rows)) return undefined;
  const port = await engine.portFor(repository.installationId);
  const repo = { owner: repository.owner, repo: repository.name };
  const fallback = repository.defaultBranch ?? (await port.defaultBranch(repo));
  const trees = new Map<string, RepoTree | undefined>();
  await Promise.all(
    [...new Set(rows.map((r) => r.base ?? fallback))].map(async (base) => {
      trees.set(base, await treeAtHead(engine, port, repo, repository.id, base, baseHeads));
    }),
  );
  // A base branch first seen under the lock has no tree here: its globs' prefixes decide.
  const decide: Decide = (claimants) =>
    decideOverlapWaits(
      claimants.map((c) => ({ ...c, base: c.base ?? fallback })),
      trees,
      engine.now().getTime(),
    );
  return { claimants: rows, decide };
}

async function treeAtHead(
  engine: Engine,
  port: GitHubPort,
  repo: RepoCoords,
  repositoryId: number,
  base: string,
  baseHeads: BaseHeads,
): Promise<RepoTree | undefined> {
  let head = baseHeads.get(base);
  if (!head) baseHeads.set(base, (head = port.branchHead(repo, base)));
  const sha = await head;
  if (sha === null) return undefined;
  const key = `${repositoryId}@${sha}`;
  let tree = engine.memory.trees.get(key);
  if (!tree) {
    tree = port.repositoryTree(repo, sha).then((t) => {
      if (t.truncated)
        engine.log.warn(
          { repository: `${repo.owner}/${repo.repo}`, base, sha, entries: t.paths.length },
          'the base tree is truncated: overlaps are decided by the globs’ literal prefixes',
        );
      return new RepoTree(t);
    });
    engine.memory.trees.set(key, tree);
    // A failed read is not kept: the next pass asks again.
    tree.catch(() => engine.memory.trees.delete(key));
  }
  return tree;
}
