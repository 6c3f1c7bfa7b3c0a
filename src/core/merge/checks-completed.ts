import { nothing, type NoEffect } from '../no-effect.js';
import { isOpenPull } from '../lifecycle/facts.js';
import { isAgentPull } from '../lifecycle/pull-link.js';
import { ACTIONS_APP_SLUG, isOwnRun, type ActionsRunOrigin } from './check-origin.js';
import { isOrderCheck } from './order-check.js';

/** A run with an agent PR whose head the finished checks ran on, as the store has it. */
export interface ChecksCompletedRun {
  runId: number;
  finished: boolean;
}

/** An agent PR the delivery names (`pull_requests[]`), as the store has it. */
export interface NamedAgentPull {
  number: number;
  runId: number;
  runFinished: boolean;
  /** Its recorded state (`pull_requests.state`, `merged`). */
  state: string;
  merged: boolean;
  /** The head the coordinator last recorded for it. */
  recordedHead: string;
}

export interface ChecksCompletedSnapshot {
  /** The agent PRs recorded at the finished checks' head, by run. */
  runs: readonly ChecksCompletedRun[];
  /** The recorded rows of the PRs the delivery names (none for a PR that is not an agent PR). */
  named: readonly NamedAgentPull[];
  /**
   * For checks of GitHub Actions: the workflow run of their check suite, read when an agent PR
   * has the head or is named (`GET /actions/runs?check_suite_id=`).
   */
  actionsRun?: ActionsRunOrigin;
}

export interface ChecksCompletedEvent {
  repositoryId: number;
  /** The PRs the payload names at this head (`CheckResultFacts.pulls`). */
  pulls: readonly CheckedPull[];
}

export type ChecksCompletedEffect =
  | NoEffect
  /**
   * An agent PR of this repository the delivery names at a head other than the one recorded:
   * its push was not delivered (or not yet). It is read from GitHub and handled as a
   * `pull_request` sighting of its head (its changed files, the run's merges); the payload alone
   * moves nothing.
   */
  | { kind: 'headMoved'; pr: number; runId: number }
  /** Decide the run's merges again: its PR's checks changed. */
  | { kind: 'advance'; runId: number };

/**
 * Checks finished on a head (`check_run.completed`, `check_suite.completed`): each active run
 * with an agent PR of that head decides its merges again, once (docs/lifecycle.md step 9). An
 * open agent PR the payload names at another head than recorded moved without its
 * `pull_request.synchronize` (docs/lifecycle.md, "Overlapping files"): it is read as a push would
 * have it, which decides its run's merges too. A fork's PR is no agent PR: one in this repository
 * is named nowhere (`pull_requests` is empty for it), and one in the fork, numbered there, names
 * no PR of this repository (`ownAgentPulls`). The jobs of a workflow run whose head is in another
 * repository (a fork's PR with the same commit) do not count (check-origin.ts): their results
 * move nothing.
 */
export function decideChecksCompleted(
  snapshot: ChecksCompletedSnapshot,
  event: ChecksCompletedEvent,
): ChecksCompletedEffect[] {
  if (snapshot.actionsRun && !isOwnRun(snapshot.actionsRun, event.repositoryId))
    return nothing("a run of another repository's head (a fork's PR): its checks do not count");
  const moved = movedAgentPulls(snapshot.named, event);
  const movedRuns = new Set(moved.map((m) => m.runId));
  const active = new Set(
    snapshot.runs.filter((r) => !r.finished && !movedRuns.has(r.runId)).map((r) => r.runId),
  );
  const effects: ChecksCompletedEffect[] = [
    ...moved,
    ...[...active].map((runId) => ({ kind: 'advance' as const, runId })),
  ];
  if (effects.length > 0) return effects;
  if (snapshot.runs.length === 0) return nothing('no agent PR has this head');
  return nothing('the runs of the PRs with this head have finished');
}

/**
 * The PRs the payload names that may be agent PRs of this repository, once each: the only ones
 * whose rows are read (`ownAgentPulls`).
 */
export function namedAgentPulls(event: ChecksCompletedEvent): number[] {
  return [...new Set(ownAgentPulls(event).map((p) => p.number))];
}

/**
 * A named PR may be an agent PR of this repository when it is a PR of this repository (a PR
 * number means something only in its base repository) from a task branch of this same
 * repository (core's `isAgentPull`). GitHub names PRs of other repositories too: a fork's PR,
 * numbered in the fork, whose head is this repository's checked branch (docs/security.md,
 * "Another installation").
 */
function ownAgentPulls(event: ChecksCompletedEvent): CheckedPull[] {
  return event.pulls.filter(
    (p) => p.baseRepoId === event.repositoryId && isAgentPull(p, event.repositoryId),
  );
}

/** The open agent PRs of active runs the payload names at another head than recorded. */
function movedAgentPulls(
  named: readonly NamedAgentPull[],
  event: ChecksCompletedEvent,
): { kind: 'headMoved'; pr: number; runId: number }[] {
  // A PR named twice goes by its first naming, as `namedAgentPulls` counts it once.
  const seen = new Set<number>();
  return ownAgentPulls(event).flatMap(({ number, headSha }) => {
    if (seen.has(number)) return [];
    seen.add(number);
    const row = named.find((n) => n.number === number);
    if (!row || row.runFinished || !isOpenPull(row) || row.recordedHead === headSha) return [];
    return [{ kind: 'headMoved' as const, pr: number, runId: row.runId }];
  });
}

/**
 * A `check_run.completed` or `check_suite.completed` payload, read defensively: ingest sees it as
 * any JSON. A check suite has no name.
 */
export interface CheckResultFacts {
  /** The check run's name. */
  name?: string;
  /** The GitHub App whose check run or suite this is. */
  appId?: number;
  /** Its slug: `github-actions` for a job of a workflow run. */
  appSlug?: string;
  /** The check suite: the suite itself, or the one the check run belongs to. */
  checkSuiteId?: number;
  headSha?: string;
  /**
   * The open PRs whose head is this commit, as the payload names them (`pull_requests`, when it
   * names any): a PR in this repository from a fork's branch is never named; a PR in a fork from
   * this repository's branch may be.
   */
  pulls?: CheckedPull[];
}

/** A PR a check result names: its number and its head as the delivery saw it. */
export interface CheckedPull {
  number: number;
  headSha: string;
  headRef: string;
  /** The repository of its head branch; null when the payload names none. */
  headRepoId: number | null;
  /** The repository the PR is in, whose numbers its number counts among; null when unnamed. */
  baseRepoId: number | null;
}

export function checkResultFactsOf(
  event: 'check_run' | 'check_suite',
  payload: Record<string, unknown>,
): CheckResultFacts {
  const check = record(payload[event]);
  const app = record(check.app);
  const suite = event === 'check_suite' ? check : record(check.check_suite);
  const pulls = Array.isArray(check.pull_requests) ? check.pull_requests.flatMap(checkedPull) : [];
  return {
    ...(typeof check.name === 'string' ? { name: check.name } : {}),
    ...(typeof app.id === 'number' ? { appId: app.id } : {}),
    ...(typeof app.slug === 'string' ? { appSlug: app.slug } : {}),
    ...(typeof suite.id === 'number' ? { checkSuiteId: suite.id } : {}),
    ...(typeof check.head_sha === 'string' && check.head_sha ? { headSha: check.head_sha } : {}),
    ...(pulls.length > 0 ? { pulls } : {}),
  };
}

function checkedPull(value: unknown): CheckedPull[] {
  const pull = record(value);
  const head = record(pull.head);
  const repo = record(head.repo);
  const baseRepo = record(record(pull.base).repo);
  if (typeof pull.number !== 'number' || typeof head.sha !== 'string' || !head.sha) return [];
  if (typeof head.ref !== 'string') return [];
  return [
    {
      number: pull.number,
      headSha: head.sha,
      headRef: head.ref,
      headRepoId: typeof repo.id === 'number' ? repo.id : null,
      baseRepoId: typeof baseRepo.id === 'number' ? baseRepo.id : null,
    },
  ];
}

/**
 * Which completed check results re-decide merges (docs/lifecycle.md step 9): those of a head,
 * except the coordinator's own (its order checks: it wrote their results itself, and no merge
 * decision waits on them). Ingest stores the others as handled (`webhooks/handled-events.ts`);
 * `ownAppId` unknown takes none for the App's own but the order check, by its name. A result of
 * GitHub Actions carries its check suite, whose workflow run says whether its checks count
 * (`decideChecksCompleted`); one naming no suite (every job of a workflow run has one) is left
 * out.
 */
export function decideCheckResult(
  facts: CheckResultFacts,
  ownAppId: number | undefined,
):
  | [{ kind: 'decideHead'; sha: string; pulls: CheckedPull[]; actionsCheckSuite: number | null }]
  | [NoEffect] {
  if (isOrderCheck(facts))
    return nothing('the order check is the coordinator’s own: no merge waits on its result');
  if (ownAppId !== undefined && facts.appId === ownAppId)
    return nothing('a check result of this App: no merge waits on it');
  if (facts.headSha === undefined) return nothing('the payload names no head');
  let actionsCheckSuite: number | null = null;
  if (facts.appSlug === ACTIONS_APP_SLUG) {
    if (facts.checkSuiteId === undefined)
      return nothing('a GitHub Actions result naming no check suite: its run cannot be told');
    actionsCheckSuite = facts.checkSuiteId;
  }
  return [{ kind: 'decideHead', sha: facts.headSha, pulls: facts.pulls ?? [], actionsCheckSuite }];
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
