import { describe, expect, it } from 'vitest';
import {
  checkResultFactsOf,
  decideCheckResult,
  ORDER_CHECK_NAME,
  type CheckResultFacts,
  decideChecksCompleted,
  type CheckedPull,
  type ChecksCompletedEffect,
  type ChecksCompletedRun,
  type NamedAgentPull,
  namedAgentPulls,
} from '../../../src/core/merge/index.js';
import { examplePayload } from '../../helpers/payloads.js';

const REPO = 186853002;

/** docs/lifecycle.md step 9: finished checks on a head re-decide the merges of its runs. */
describe('decideChecksCompleted', () => {
  const active = (runId: number): ChecksCompletedRun => ({ runId, finished: false });
  const finished = (runId: number): ChecksCompletedRun => ({ runId, finished: true });

  it.each<{ name: string; runs: ChecksCompletedRun[]; expected: ChecksCompletedEffect[] }>([
    {
      name: 'a head no agent PR has',
      runs: [],
      expected: [{ kind: 'none', reason: 'no agent PR has this head' }],
    },
    {
      name: 'the PR of a finished run',
      runs: [finished(1)],
      expected: [{ kind: 'none', reason: 'the runs of the PRs with this head have finished' }],
    },
    {
      name: 'the PR of an active run',
      runs: [active(1)],
      expected: [{ kind: 'advance', runId: 1 }],
    },
    {
      name: 'two PRs of one run with the same head decide once',
      runs: [active(1), active(1)],
      expected: [{ kind: 'advance', runId: 1 }],
    },
    {
      name: 'each active run decides, a finished one does not',
      runs: [active(2), finished(1), active(3)],
      expected: [
        { kind: 'advance', runId: 2 },
        { kind: 'advance', runId: 3 },
      ],
    },
  ])('$name', ({ runs, expected }) => {
    expect(decideChecksCompleted({ runs, named: [] }, { repositoryId: REPO, pulls: [] })).toEqual(
      expected,
    );
  });
});

/**
 * A check result naming an agent PR at a head other than the recorded one: the PR moved without
 * its push's delivery (docs/lifecycle.md, "Overlapping files").
 */
describe('decideChecksCompleted: a head whose push was not delivered', () => {
  const RECORDED = 'a'.repeat(40);
  const NEW = 'b'.repeat(40);
  const named = (over: Partial<CheckedPull> = {}): CheckedPull => ({
    number: 7,
    headSha: NEW,
    headRef: 'agent/3/a',
    headRepoId: REPO,
    baseRepoId: REPO,
    ...over,
  });
  const row = (over: Partial<NamedAgentPull> = {}): NamedAgentPull => ({
    number: 7,
    runId: 1,
    runFinished: false,
    state: 'open',
    merged: false,
    recordedHead: RECORDED,
    ...over,
  });
  const noneRecorded = [{ kind: 'none', reason: 'no agent PR has this head' }];

  it.each<{
    name: string;
    runs?: ChecksCompletedRun[];
    rows: NamedAgentPull[];
    pulls: CheckedPull[];
    expected: unknown;
  }>([
    {
      name: 'an open agent PR named at a new head moves',
      rows: [row()],
      pulls: [named()],
      expected: [{ kind: 'headMoved', pr: 7, runId: 1 }],
    },
    {
      name: 'named at its recorded head: nothing moved',
      runs: [{ runId: 1, finished: false }],
      rows: [row({ recordedHead: NEW })],
      pulls: [named()],
      expected: [{ kind: 'advance', runId: 1 }],
    },
    {
      name: 'a PR with no recorded row is not ours',
      rows: [],
      pulls: [named()],
      expected: noneRecorded,
    },
    {
      name: 'a PR whose head is in another repository (a fork) is no agent PR',
      rows: [row()],
      pulls: [named({ headRepoId: 99 })],
      expected: noneRecorded,
    },
    {
      name: "a fork's PR from this repository's task branch, numbered in the fork, names no PR here",
      rows: [row()],
      pulls: [named({ baseRepoId: 99 })],
      expected: noneRecorded,
    },
    {
      name: 'a PR whose repository the payload does not name is not taken for one of this',
      rows: [row()],
      pulls: [named({ baseRepoId: null })],
      expected: noneRecorded,
    },
    {
      name: "the PR's own head is compared, not a fork's PR's with the same number named first",
      rows: [row()],
      pulls: [named({ baseRepoId: 99, headSha: RECORDED }), named()],
      expected: [{ kind: 'headMoved', pr: 7, runId: 1 }],
    },
    {
      name: "a fork's PR with the same number at another head moves nothing of this repository",
      runs: [{ runId: 1, finished: false }],
      rows: [row()],
      pulls: [named({ baseRepoId: 99 }), named({ headSha: RECORDED })],
      expected: [{ kind: 'advance', runId: 1 }],
    },
    {
      name: 'a PR whose head branch is no task branch is no agent PR',
      rows: [row()],
      pulls: [named({ headRef: 'feature/login' })],
      expected: noneRecorded,
    },
    {
      name: 'a PR recorded closed does not move',
      rows: [row({ state: 'closed' })],
      pulls: [named()],
      expected: noneRecorded,
    },
    {
      name: 'a PR recorded merged does not move',
      rows: [row({ merged: true })],
      pulls: [named()],
      expected: noneRecorded,
    },
    {
      name: 'the PR of a finished run does not move',
      rows: [row({ runFinished: true })],
      pulls: [named()],
      expected: noneRecorded,
    },
    {
      name: 'named twice, it moves once',
      rows: [row()],
      pulls: [named(), named()],
      expected: [{ kind: 'headMoved', pr: 7, runId: 1 }],
    },
    {
      name: 'its run decides with the move, not again; another run with the head still decides',
      runs: [
        { runId: 1, finished: false },
        { runId: 2, finished: false },
      ],
      rows: [row()],
      pulls: [named()],
      expected: [
        { kind: 'headMoved', pr: 7, runId: 1 },
        { kind: 'advance', runId: 2 },
      ],
    },
  ])('$name', ({ runs = [], rows, pulls, expected }) => {
    expect(decideChecksCompleted({ runs, named: rows }, { repositoryId: REPO, pulls })).toEqual(
      expected,
    );
  });

  const FORK = 99;
  const run = (headRepositoryId: number | null) => ({
    id: 5,
    checkSuiteId: 6,
    headRepositoryId,
    actorLogin: 'agent-coordinator[bot]',
    workflowPath: '.github/workflows/ci.yml',
  });
  const forkRun = [
    {
      kind: 'none',
      reason: "a run of another repository's head (a fork's PR): its checks do not count",
    },
  ];
  it.each<{ name: string; headRepositoryId: number | null; expected: unknown }>([
    {
      name: 'a workflow run of this repository moves the PR and decides',
      headRepositoryId: REPO,
      expected: [
        { kind: 'headMoved', pr: 7, runId: 1 },
        { kind: 'advance', runId: 2 },
      ],
    },
    { name: "a fork's run moves and decides nothing", headRepositoryId: FORK, expected: forkRun },
    { name: 'a deleted fork’s run neither', headRepositoryId: null, expected: forkRun },
  ])('$name', ({ headRepositoryId, expected }) => {
    expect(
      decideChecksCompleted(
        {
          runs: [
            { runId: 1, finished: false },
            { runId: 2, finished: false },
          ],
          named: [row()],
          actionsRun: run(headRepositoryId),
        },
        { repositoryId: REPO, pulls: [named()] },
      ),
    ).toEqual(expected);
  });

  it('looks up only the named PRs that may be agent PRs of this repository, once each', () => {
    const pulls = [
      named(),
      named(),
      named({ number: 8, headRepoId: 99 }),
      named({ number: 9, headRef: 'feature/login' }),
      named({ number: 10, headRef: 'agent/3/b' }),
      named({ number: 11, baseRepoId: 99 }),
    ];
    expect(namedAgentPulls({ repositoryId: REPO, pulls })).toEqual([7, 10]);
  });
});

/** Which completed check runs and suites re-decide merges: not the App's own. */
describe('decideCheckResult', () => {
  const APP = 42;
  const HEAD = 'c0ffee0123456789abcdef0123456789abcdef01';
  it.each<{ name: string; facts: CheckResultFacts; appId?: number; expected: unknown }>([
    {
      name: 'another App’s check run on a head',
      facts: { name: 'ci/test', appId: 15368, headSha: HEAD },
      appId: APP,
      expected: [{ kind: 'decideHead', sha: HEAD, pulls: [], actionsCheckSuite: null }],
    },
    {
      name: 'another App’s check suite (no name)',
      facts: { appId: 15368, headSha: HEAD },
      appId: APP,
      expected: [{ kind: 'decideHead', sha: HEAD, pulls: [], actionsCheckSuite: null }],
    },
    {
      name: 'the order check, by its name',
      facts: { name: ORDER_CHECK_NAME, appId: APP, headSha: HEAD },
      appId: APP,
      expected: [
        {
          kind: 'none',
          reason: 'the order check is the coordinator’s own: no merge waits on its result',
        },
      ],
    },
    {
      name: 'the order check by its name when the App id is unknown',
      facts: { name: ORDER_CHECK_NAME, appId: APP, headSha: HEAD },
      expected: [
        {
          kind: 'none',
          reason: 'the order check is the coordinator’s own: no merge waits on its result',
        },
      ],
    },
    {
      name: 'this App’s check suite',
      facts: { appId: APP, headSha: HEAD },
      appId: APP,
      expected: [{ kind: 'none', reason: 'a check result of this App: no merge waits on it' }],
    },
    {
      name: 'with the App id unknown, an App’s suite is not taken for its own',
      facts: { appId: APP, headSha: HEAD },
      expected: [{ kind: 'decideHead', sha: HEAD, pulls: [], actionsCheckSuite: null }],
    },
    {
      name: 'a payload naming no head',
      facts: { name: 'ci/test', appId: 15368 },
      appId: APP,
      expected: [{ kind: 'none', reason: 'the payload names no head' }],
    },
    {
      name: 'the PRs the payload names go along',
      facts: {
        appId: 15368,
        headSha: HEAD,
        pulls: [
          { number: 2, headSha: HEAD, headRef: 'agent/1/a', headRepoId: REPO, baseRepoId: REPO },
        ],
      },
      appId: APP,
      expected: [
        {
          kind: 'decideHead',
          sha: HEAD,
          pulls: [
            { number: 2, headSha: HEAD, headRef: 'agent/1/a', headRepoId: REPO, baseRepoId: REPO },
          ],
          actionsCheckSuite: null,
        },
      ],
    },
    {
      name: 'a GitHub Actions result carries its check suite, whose run says where it came from',
      facts: { appId: 15368, appSlug: 'github-actions', checkSuiteId: 77, headSha: HEAD },
      appId: APP,
      expected: [{ kind: 'decideHead', sha: HEAD, pulls: [], actionsCheckSuite: 77 }],
    },
    {
      name: 'a GitHub Actions result naming no check suite',
      facts: { appId: 15368, appSlug: 'github-actions', headSha: HEAD },
      appId: APP,
      expected: [
        {
          kind: 'none',
          reason: 'a GitHub Actions result naming no check suite: its run cannot be told',
        },
      ],
    },
    {
      name: 'another App’s suite is no workflow run’s',
      facts: { appId: 9, appSlug: 'other-ci', checkSuiteId: 77, headSha: HEAD },
      appId: APP,
      expected: [{ kind: 'decideHead', sha: HEAD, pulls: [], actionsCheckSuite: null }],
    },
  ])('$name', ({ facts, appId, expected }) => {
    expect(decideCheckResult(facts, appId)).toEqual(expected);
  });

  it.each(['check_run', 'check_suite'] as const)(
    'reads the PRs a %s payload of GitHub names (@octokit/webhooks-examples)',
    (event) => {
      const example = examplePayload(event, 'completed');
      const check = example[event] as { head_sha: string };
      expect(checkResultFactsOf(event, example).pulls).toEqual([
        {
          number: 2,
          headSha: check.head_sha,
          headRef: 'changes',
          headRepoId: REPO,
          baseRepoId: REPO,
        },
      ]);
    },
  );

  it.each(['check_run', 'check_suite'] as const)(
    'reads the App’s slug and the check suite of a %s payload (@octokit/webhooks-examples)',
    (event) => {
      const example = examplePayload(event, 'completed');
      const check = example[event] as {
        id: number;
        app: { slug?: string };
        check_suite?: { id: number };
      };
      const facts = checkResultFactsOf(event, example);
      expect(facts.checkSuiteId).toBe(event === 'check_suite' ? check.id : check.check_suite!.id);
      // The check_suite example's App has no slug.
      expect(facts.appSlug).toBe(check.app.slug);
    },
  );

  it('reads the facts defensively from any JSON', () => {
    expect(
      checkResultFactsOf('check_run', {
        check_run: { name: 'ci/test', head_sha: HEAD, app: { id: 7 } },
      }),
    ).toEqual({ name: 'ci/test', appId: 7, headSha: HEAD });
    expect(
      checkResultFactsOf('check_run', {
        check_run: { head_sha: HEAD, app: { slug: 5 }, check_suite: { id: '77' } },
      }),
    ).toEqual({ headSha: HEAD });
    expect(
      checkResultFactsOf('check_suite', { check_suite: { head_sha: HEAD, app: null } }),
    ).toEqual({ headSha: HEAD });
    expect(checkResultFactsOf('check_run', { check_run: 'nonsense' })).toEqual({});
    expect(
      checkResultFactsOf('check_suite', {
        check_suite: { head_sha: HEAD, pull_requests: [{ number: 2 }, 'nonsense', null] },
      }),
    ).toEqual({ headSha: HEAD });
    expect(checkResultFactsOf('check_suite', {})).toEqual({});
  });
});
