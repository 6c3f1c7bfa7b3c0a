/**
 * Which checks on an agent PR's head count (docs/lifecycle.md, "Which checks count"). Checks
 * belong to a commit, not to a PR: whoever opens a PR from a fork with an agent PR's head commit
 * gets the repository's `pull_request` workflows run on that commit, in this repository, with the
 * workflow files of the fork's PR (GitHub's "Events that trigger workflows", workflows in forked
 * repositories), and their jobs' check runs are listed on the commit next to the agent PR's own
 * (`GET /commits/{sha}/check-runs`). Such a run is told by its `head_repository`: an agent PR's
 * head is always in this repository (isAgentPull), so a run whose head is elsewhere was started
 * by someone else's PR. Its jobs neither pass nor fail the agent PR, are never re-run, and
 * nothing they say reaches the worker.
 *
 * Check runs of other Apps and commit statuses count: a fork's workflow cannot write them (its
 * `GITHUB_TOKEN` is read-only in a fork's PR, same source), a check run takes an App the
 * repository's admins installed with `checks: write`, and a commit status write access to the
 * repository ("About status checks": "Anyone with write permissions to a repository can set the
 * state for any status check"). Their origin cannot be told, so an integration that itself
 * builds forks' PRs reports on the agent PR's commit as the admins let it (docs/lifecycle.md).
 * But a commit status written with a workflow's `GITHUB_TOKEN` (its creator `github-actions[bot]`)
 * is left out, as a check run that names no job is: a `workflow_run` or `pull_request_target`
 * workflow writes it with a token that may, on a commit and with words a fork's PR chose, and
 * nothing of it tells which run, started by whom, wrote it.
 */

import { isFailingCheck } from './checks.js';

/** The App whose check runs are the jobs of GitHub Actions workflow runs. */
export const ACTIONS_APP_SLUG = 'github-actions';

/** A check on a head, as much of it as tells where it came from. */
export interface HeadCheck {
  name: string;
  source: 'check_run' | 'status';
  /**
   * The App that owns a check run, or whose token wrote a commit status (its creator's bot);
   * null for a status a person wrote.
   */
  appSlug: string | null;
  /** A check run's `check_suite.id`; null for a commit status, or when GitHub names none. */
  checkSuiteId: number | null;
  /** The workflow run an Actions job's `details_url` names (the run `rerun-failed-jobs` re-runs). */
  actionsJob: { runId: number } | null;
}

/** A workflow run on the head, as `GET /actions/runs?head_sha=` lists it. */
export interface ActionsRunOrigin {
  id: number;
  /** Its check suite, the `check_suite.id` of its jobs' check runs. */
  checkSuiteId: number;
  /**
   * `head_repository.id`; null when GitHub names none, as for a fork deleted since
   * (github/rest-api-description#1586): not this repository either way.
   */
  headRepositoryId: number | null;
  /**
   * `actor.login`: who started the run ("the user that triggered the initial workflow run": a
   * PR's author when it opened, the pusher of its head). Null when GitHub names none.
   */
  actorLogin: string | null;
  /**
   * Its workflow file, as GitHub's `path` names it (`.github/workflows/ci.yml`, maybe with the
   * repository before it and `@<ref>` after); null when GitHub names none.
   */
  workflowPath: string | null;
}

/**
 * Whether the run is one of the worker workflow's (`worker.workflow`, a file name): the
 * coordinator's own `workflow_dispatch` runs of an attempt. GitHub lists the jobs of every run on
 * the commit it ran on, and a task stacked on its dependency's open PR starts on that PR's head
 * (docs/stacking.md), so its worker's jobs are check runs there: they are no check of that PR's,
 * whose merge they would hold while the child works and fail when its agent fails, sending the
 * dependency's worker what the child's agent printed.
 */
export function isWorkerRun(run: ActionsRunOrigin, workerWorkflow: string): boolean {
  const file = /^(?:[^/]+\/[^/]+\/)?\.github\/workflows\/([^@]+)(?:@.*)?$/.exec(
    run.workflowPath ?? '',
  );
  return file?.[1] === workerWorkflow;
}

/** Whether a workflow run's head is in this repository (not a fork's PR on the same commit). */
export function isOwnRun(run: ActionsRunOrigin, repositoryId: number): boolean {
  return run.headRepositoryId === repositoryId;
}

/**
 * Who may start the runs whose jobs count: the App itself (it opens the agent PRs, its workers
 * push to them, it updates their branches) and people with write access (a maintainer's push or
 * re-run). Anyone who can read a private repository can open a PR from an agent's branch onto
 * another base (docs/worker.md, "Pull request markers"), and GitHub runs that PR's `pull_request`
 * workflows on the agent's commit, started by its author: their jobs neither pass nor fail the
 * agent PR, and nothing they say reaches the worker.
 */
export interface RunStarters {
  appLogin: string;
  /** Lower-cased logins of the runs' other starters who have write access. */
  writers: ReadonlySet<string>;
}

/**
 * The starters of this repository's runs whose write access is to be read (not the App's), each
 * once, lower-cased. `fresh`: those whose run has a failing job among `checks`, whose log and
 * annotations a send-back gives the worker, so their role is asked of GitHub now; someone
 * removed within the role cache's minute (src/engine/roles.ts) must not instruct the agent.
 * `cached`: the others, whose runs only pass or wait.
 */
export function runStartersToRead(
  runs: readonly ActionsRunOrigin[],
  repositoryId: number,
  appLogin: string,
  checks: readonly (HeadCheck & { status: string; conclusion: string | null })[],
): { fresh: string[]; cached: string[] } {
  const failingRuns = new Set(
    checks.flatMap((c) => (c.actionsJob && isFailingCheck(c) ? [c.actionsJob.runId] : [])),
  );
  const fresh = new Set<string>();
  const cached = new Set<string>();
  for (const run of runs) {
    const login = run.actorLogin?.toLowerCase();
    if (!isOwnRun(run, repositoryId) || !login || login === appLogin.toLowerCase()) continue;
    (failingRuns.has(run.id) ? fresh : cached).add(login);
  }
  for (const login of fresh) cached.delete(login);
  return { fresh: [...fresh], cached: [...cached] };
}

function startedByTrusted(run: ActionsRunOrigin, starters: RunStarters): boolean {
  const login = run.actorLogin!.toLowerCase();
  return login === starters.appLogin.toLowerCase() || starters.writers.has(login);
}

export type CountedChecks<C> =
  /**
   * `leftOut`: jobs of runs whose head is in another repository, that no trusted starter started,
   * or of the worker workflow.
   */
  | { ok: true; counted: C[]; leftOut: C[] }
  /** What GitHub answered does not tell where an Actions job came from: decide nothing. */
  | { ok: false; why: string };

/**
 * The checks of a head that count, given the workflow runs on it and the worker workflow's file
 * (`worker.workflow`), whose runs' jobs count for no head. An Actions job whose run is
 * missing from `runs`, that names no check suite, or whose details name another run than its
 * suite's is an error, never a pass: both ways of guessing are wrong, one merges on a red
 * check, the other lets a fork's text through.
 */
export function countedChecks<C extends HeadCheck>(
  checks: readonly C[],
  runs: readonly ActionsRunOrigin[],
  repositoryId: number,
  starters: RunStarters,
  workerWorkflow: string,
): CountedChecks<C> {
  const counted: C[] = [];
  const leftOut: C[] = [];
  for (const check of checks) {
    if (check.appSlug !== ACTIONS_APP_SLUG) {
      counted.push(check);
      continue;
    }
    // A workflow's token wrote this status: no run, starter or repository of origin to tell.
    if (check.source === 'status') {
      leftOut.push(check);
      continue;
    }
    // Not a job: a check run some workflow's token made through the API, whose details_url
    // GitHub keeps its own, and which GitHub files under the first run on the commit, whoever
    // started that run and whatever workflow made the check (a `workflow_run` reporter writing a
    // fork's test results onto the head). Neither its suite nor its run tells who wrote it.
    if (check.actionsJob === null) {
      leftOut.push(check);
      continue;
    }
    if (check.checkSuiteId === null)
      return { ok: false, why: `the Actions check run ${check.name} names no check suite` };
    const run = runs.find((r) => r.checkSuiteId === check.checkSuiteId);
    if (!run)
      return {
        ok: false,
        why: `no workflow run on the head has check suite ${check.checkSuiteId} (check run ${check.name})`,
      };
    if (check.actionsJob.runId !== run.id)
      return {
        ok: false,
        why: `the check run ${check.name} names workflow run ${check.actionsJob.runId}, its check suite run ${run.id}`,
      };
    if (!isOwnRun(run, repositoryId) || isWorkerRun(run, workerWorkflow)) {
      leftOut.push(check);
      continue;
    }
    if (run.actorLogin === null)
      return { ok: false, why: `workflow run ${run.id} (check run ${check.name}) names no actor` };
    (startedByTrusted(run, starters) ? counted : leftOut).push(check);
  }
  return { ok: true, counted, leftOut };
}

/**
 * Whether reading the workflow runs of a head is needed to tell which of its checks count: an
 * Actions job whose suite's run is not `known` already (a suite's origin never changes). A check
 * run that names no job is left out whatever its suite.
 */
export function needsActionsRuns(
  checks: readonly HeadCheck[],
  known: (checkSuiteId: number) => boolean = () => false,
): boolean {
  return checks.some(
    (c) =>
      c.source === 'check_run' &&
      c.appSlug === ACTIONS_APP_SLUG &&
      c.actionsJob !== null &&
      (c.checkSuiteId === null || !known(c.checkSuiteId)),
  );
}
