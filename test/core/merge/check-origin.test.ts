import { describe, expect, it } from 'vitest';
import {
  countedChecks,
  needsActionsRuns,
  runStartersToRead,
  type ActionsRunOrigin,
  type HeadCheck,
  type RunStarters,
} from '../../../src/core/merge/index.js';

const REPO = 186853002;
const FORK = 99;

const job = (name: string, suite: number | null, run: number | null = suite): HeadCheck => ({
  name,
  source: 'check_run',
  appSlug: 'github-actions',
  checkSuiteId: suite,
  actionsJob: run === null ? null : { runId: run },
});
const otherApp = (name: string): HeadCheck => ({
  name,
  source: 'check_run',
  appSlug: 'other-ci',
  checkSuiteId: 500,
  actionsJob: null,
});
/** A commit status a person wrote, or one an App's token wrote (`appSlug`, its creator's bot). */
const status = (name: string, appSlug: string | null = null): HeadCheck => ({
  name,
  source: 'status',
  appSlug,
  checkSuiteId: null,
  actionsJob: null,
});
const APP = 'agent-coordinator[bot]';
const WORKER = 'agent-worker.yml';
// Run n has check suite n, of the repository's CI; the App started it unless another is named.
const run = (
  id: number,
  headRepositoryId: number | null,
  actorLogin: string | null = APP,
  workflowPath: string | null = '.github/workflows/ci.yml@refs/heads/main',
): ActionsRunOrigin => ({ id, checkSuiteId: id, headRepositoryId, actorLogin, workflowPath });
/** The App, and carol, who has write access. */
const STARTERS: RunStarters = { appLogin: APP, writers: new Set(['carol']) };
const names = (checks: readonly HeadCheck[]) => checks.map((c) => c.name);

/**
 * docs/lifecycle.md, "Which checks count": the jobs of a workflow run whose head is in another
 * repository (a fork's PR with the agent PR's commit) do not count; other Apps' check runs and
 * commit statuses do; a job whose run cannot be told is an error.
 */
describe('countedChecks', () => {
  it.each<{
    name: string;
    checks: HeadCheck[];
    runs: ActionsRunOrigin[];
    counted: string[];
    leftOut: string[];
  }>([
    {
      name: 'a job of a run of this repository counts',
      checks: [job('test', 1)],
      runs: [run(1, REPO)],
      counted: ['test'],
      leftOut: [],
    },
    {
      name: "a fork's job with the same name is left out, the repository's counts",
      checks: [job('test', 1), job('test', 2)],
      runs: [run(2, FORK), run(1, REPO)],
      counted: ['test'],
      leftOut: ['test'],
    },
    {
      name: 'a job of a run whose head repository is gone (a deleted fork) is left out',
      checks: [job('test', 3)],
      runs: [run(3, null)],
      counted: [],
      leftOut: ['test'],
    },
    {
      // A `workflow_run` reporter writing a fork's test results onto the agent's commit with its
      // GITHUB_TOKEN: GitHub files the check under the first run on the commit, the App's, and
      // keeps its details_url its own (never a job's).
      name: "an Actions check run that names no job is left out, even in the App's run's suite",
      checks: [job('test', 1), job('Test results', 1, null), job('lint', 2, null)],
      runs: [run(1, REPO), run(2, FORK)],
      counted: ['test'],
      leftOut: ['Test results', 'lint'],
    },
    {
      name: "other Apps' check runs and commit statuses count: a fork's workflow cannot write them",
      checks: [otherApp('circleci'), status('legacy-ci')],
      runs: [],
      counted: ['circleci', 'legacy-ci'],
      leftOut: [],
    },
    {
      // A `workflow_run` or `pull_request_target` workflow writing a status onto the agent's
      // commit with its GITHUB_TOKEN, in words a fork's PR chose: no run or starter to tell.
      name: "a commit status a workflow's token wrote is left out; another App's counts",
      checks: [status('coverage', 'github-actions'), status('deploy', 'other-ci')],
      runs: [run(1, REPO)],
      counted: ['deploy'],
      leftOut: ['coverage'],
    },
    {
      name: 'a job of a run a person with write access started counts, whatever the case',
      checks: [job('test', 1)],
      runs: [run(1, REPO, 'Carol')],
      counted: ['test'],
      leftOut: [],
    },
    {
      name: "a look-alike PR's job on the agent's commit, started by a reader, is left out",
      checks: [job('test', 1), job('test', 2)],
      runs: [run(1, REPO), run(2, REPO, 'a-reader')],
      counted: ['test'],
      leftOut: ['test'],
    },
    {
      // docs/stacking.md: a stacked task's worker runs on its dependency's head, started by the
      // App; GitHub's `path` may name the repository and the ref, or neither.
      name: "the worker workflow's jobs are left out, however GitHub spells its path",
      checks: [job('work', 1), job('agent', 2), job('publish', 3), job('test', 4)],
      runs: [
        run(1, REPO, APP, `.github/workflows/${WORKER}`),
        run(2, REPO, APP, `.github/workflows/${WORKER}@refs/heads/agent/1/b`),
        run(3, REPO, APP, `acme/widgets/.github/workflows/${WORKER}@main`),
        run(4, REPO, APP, `.github/workflows/not-${WORKER}`),
      ],
      counted: ['test'],
      leftOut: ['work', 'agent', 'publish'],
    },
    {
      name: 'no checks: nothing counts, nothing is left out',
      checks: [],
      runs: [run(1, FORK)],
      counted: [],
      leftOut: [],
    },
  ])('$name', ({ checks, runs, counted, leftOut }) => {
    const verdict = countedChecks(checks, runs, REPO, STARTERS, WORKER);
    expect(verdict.ok).toBe(true);
    if (!verdict.ok) return;
    expect(names(verdict.counted)).toEqual(counted);
    expect(names(verdict.leftOut)).toEqual(leftOut);
  });

  it('keeps the checks themselves, in their order', () => {
    const own = job('test', 1);
    const lint = otherApp('lint');
    const verdict = countedChecks(
      [own, job('test', 2), lint],
      [run(1, REPO), run(2, FORK)],
      REPO,
      STARTERS,
      WORKER,
    );
    expect(verdict).toEqual({ ok: true, counted: [own, lint], leftOut: [job('test', 2)] });
  });

  it.each<{ name: string; checks: HeadCheck[]; runs: ActionsRunOrigin[]; why: string }>([
    {
      name: 'a job whose run GitHub does not list',
      checks: [job('test', 1), job('lint', 7)],
      runs: [run(1, REPO)],
      why: 'no workflow run on the head has check suite 7 (check run lint)',
    },
    {
      name: 'a job naming no check suite',
      checks: [job('test', null, 1)],
      runs: [run(1, REPO)],
      why: 'the Actions check run test names no check suite',
    },
    {
      name: 'a job of a run of this repository that names no starter',
      checks: [job('test', 4)],
      runs: [run(4, REPO, null)],
      why: 'workflow run 4 (check run test) names no actor',
    },
    {
      name: 'a job whose details name another run than its suite’s',
      checks: [job('test', 1, 2)],
      runs: [run(1, REPO), run(2, REPO)],
      why: 'the check run test names workflow run 2, its check suite run 1',
    },
  ])('$name is an error, not a pass', ({ checks, runs, why }) => {
    expect(countedChecks(checks, runs, REPO, STARTERS, WORKER)).toEqual({ ok: false, why });
  });

  it.each<[string, HeadCheck[], boolean]>([
    ['an Actions job', [status('s'), job('test', 1)], true],
    ['an Actions check run that names no job', [job('Test results', 1, null)], false],
    ["other Apps' check runs and statuses", [otherApp('c'), status('s')], false],
    ['no checks', [], false],
  ])('reading the head’s workflow runs is needed for %s: %s', (_name, checks, needed) => {
    expect(needsActionsRuns(checks)).toBe(needed);
  });

  it.each<[string, HeadCheck[], boolean]>([
    ["every Actions job's suite known", [job('test', 1), job('lint', 1), status('s')], false],
    ['one suite of two unknown', [job('test', 1), job('e2e', 2)], true],
    ['an Actions job naming no suite', [job('test', null, 1)], true],
  ])('with the runs of suite 1 known: reading is needed for %s: %s', (_name, checks, needed) => {
    expect(needsActionsRuns(checks, (suite) => suite === 1)).toBe(needed);
  });
});

describe('runStartersToRead', () => {
  const done = (name: string, runId: number, conclusion: string | null) => ({
    ...job(name, runId),
    status: 'completed',
    conclusion,
  });
  const pending = (name: string, runId: number) => ({
    ...job(name, runId),
    status: 'in_progress',
    conclusion: null,
  });

  it('names the starters of this repository’s runs once each, lower-cased, never the App or a fork’s', () => {
    expect(
      runStartersToRead(
        [
          run(1, REPO),
          run(2, REPO, 'Carol'),
          run(3, REPO, 'carol'),
          run(4, REPO, 'a-reader'),
          run(5, FORK, 'outsider'),
          run(6, REPO, 'Agent-Coordinator[bot]'),
          run(7, REPO, null),
        ],
        REPO,
        APP,
        [],
      ),
    ).toEqual({ fresh: [], cached: ['carol', 'a-reader'] });
  });

  // A failing job's log and annotations go to the worker on a send-back: its starter's role is
  // read now, not from the cache's minute.
  it.each<{ name: string; checks: ReturnType<typeof done>[]; fresh: string[]; cached: string[] }>([
    {
      name: 'passing and pending jobs',
      checks: [done('t', 2, 'success'), pending('l', 3)],
      fresh: [],
      cached: ['carol', 'dave'],
    },
    {
      name: 'a failing job',
      checks: [done('t', 2, 'failure')],
      fresh: ['carol'],
      cached: ['dave'],
    },
    {
      name: 'a completed job with no conclusion',
      checks: [done('t', 3, null)],
      fresh: ['dave'],
      cached: ['carol'],
    },
    {
      name: 'neutral and skipped jobs',
      checks: [done('t', 2, 'neutral'), done('l', 3, 'skipped')],
      fresh: [],
      cached: ['carol', 'dave'],
    },
    {
      name: 'a failing job of one of her two runs',
      checks: [done('t', 4, 'cancelled')],
      fresh: ['carol'],
      cached: ['dave'],
    },
    {
      name: "a failing job of the App's run",
      checks: [done('t', 1, 'failure')],
      fresh: [],
      cached: ['carol', 'dave'],
    },
  ])('$name', ({ checks, fresh, cached }) => {
    const runs = [run(1, REPO), run(2, REPO, 'Carol'), run(3, REPO, 'dave'), run(4, REPO, 'carol')];
    expect(runStartersToRead(runs, REPO, APP, checks)).toEqual({ fresh, cached });
  });
});
