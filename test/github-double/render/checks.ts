import type { Core } from '../core.js';
import {
  checkRunsOf,
  type CheckRun,
  type CheckSuite,
  type CommitStatus,
  type JobAnnotation,
  type Repo,
} from '../model.js';
import { openPullsWithHead } from '../ops/pull-events.js';
import { appJson, userJson } from './accounts.js';
import { repoApiUrl, repoHtmlUrl, simpleCommitJson } from './repos.js';

// `pull-request-minimal`: the open PRs whose head is the suite's commit on its branch of this
// repository ("A pull request matches a check suite if they have the same `head_sha` and
// `head_branch`", the `check_suite` webhook's schema): this repository's own, then those of other
// repositories of its network (a fork's PR from this repository's branch, numbered in the fork),
// as GitHub names them in the checks of the head's repository (octo-sts/app#1590). A PR from
// another branch at the same commit is not named: a stacked task's worker runs on its
// dependency's head from its own branch. A suite whose head branch is a fork's (`head_branch`
// null) names none, as GitHub documents for `check_suite.pull_requests`.
export function pullsOfSuite(core: Core, repo: Repo, suite: CheckSuite): Record<string, unknown>[] {
  if (suite.headBranch === null) return [];
  const own = [...repo.pulls.values()].filter(
    (p) =>
      p.issue.state === 'open' &&
      p.headSha === suite.headSha &&
      p.headRepo === repo &&
      p.headRef === suite.headBranch,
  );
  const foreign = openPullsWithHead(core, repo, suite.headBranch).filter(
    (o) => o.repo !== repo && o.pull.headSha === suite.headSha,
  );
  return [...own.map((pull) => ({ repo, pull })), ...foreign].map(({ repo: base, pull: p }) => ({
    id: p.id,
    number: p.number,
    url: `${repoApiUrl(core, base)}/pulls/${p.number}`,
    head: {
      ref: p.headRef,
      sha: p.headSha,
      repo: { id: repo.id, url: repoApiUrl(core, repo), name: repo.name },
    },
    base: {
      ref: p.baseRef,
      sha: base.refs.get(`heads/${p.baseRef}`) ?? '',
      repo: { id: base.id, url: repoApiUrl(core, base), name: base.name },
    },
  }));
}

export function checkRunJson(core: Core, repo: Repo, r: CheckRun): Record<string, unknown> {
  const api = `${repoApiUrl(core, repo)}/check-runs/${r.id}`;
  return {
    id: r.id,
    head_sha: r.headSha,
    node_id: r.nodeId,
    external_id: r.externalId ?? '',
    url: api,
    html_url: `${repoHtmlUrl(core, repo)}/runs/${r.id}`,
    details_url: r.detailsUrl ?? `${repoHtmlUrl(core, repo)}/runs/${r.id}`,
    status: r.status,
    conclusion: r.conclusion,
    started_at: r.startedAt,
    completed_at: r.completedAt,
    output: {
      title: r.output.title,
      summary: r.output.summary,
      text: r.output.text,
      annotations_count: r.annotations.length,
      annotations_url: `${api}/annotations`,
    },
    name: r.name,
    check_suite: { id: r.suite.id },
    app: appJson(core, r.app),
    pull_requests: pullsOfSuite(core, repo, r.suite),
  };
}

export function checkSuiteJson(core: Core, repo: Repo, s: CheckSuite): Record<string, unknown> {
  const head = repo.commits.get(s.headSha);
  const runs = checkRunsOf(repo, s);
  return {
    id: s.id,
    node_id: s.nodeId,
    head_branch: s.headBranch,
    head_sha: s.headSha,
    status: s.status,
    conclusion: s.conclusion,
    url: `${repoApiUrl(core, repo)}/check-suites/${s.id}`,
    before: head?.parents[0] ?? null,
    after: s.headSha,
    pull_requests: pullsOfSuite(core, repo, s),
    app: appJson(core, s.app),
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    rerequestable: true,
    runs_rerequestable: true,
    latest_check_runs_count: runs.length,
    check_runs_url: `${repoApiUrl(core, repo)}/check-suites/${s.id}/check-runs`,
    head_commit: head ? simpleCommitJson(head) : null,
  };
}

export function statusJson(core: Core, repo: Repo, s: CommitStatus): Record<string, unknown> {
  return {
    url: `${repoApiUrl(core, repo)}/statuses/${s.sha}`,
    avatar_url: `${core.url}/avatars/u/${s.creator.id}?v=4`,
    id: s.id,
    node_id: s.nodeId,
    state: s.state,
    description: s.description,
    target_url: s.targetUrl,
    context: s.context,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    creator: userJson(core, s.creator),
  };
}

// `check-annotation`. A workflow command without `file=` lands on `.github`, line 1, with an
// empty title and no raw details.
export function annotationJson(
  core: Core,
  repo: Repo,
  headSha: string,
  a: JobAnnotation,
): Record<string, unknown> {
  const path = a.path ?? '.github';
  const startLine = a.start_line ?? 1;
  return {
    path,
    blob_href: `${repoHtmlUrl(core, repo)}/blob/${headSha}/${path}`,
    start_line: startLine,
    end_line: a.end_line ?? startLine,
    start_column: null,
    end_column: null,
    annotation_level: a.annotation_level,
    title: a.title ?? '',
    message: a.message,
    raw_details: '',
  };
}
