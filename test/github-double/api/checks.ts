import { resolveRef } from '../git.js';
import {
  checkRunsOn,
  statusesOn,
  type AppInfo,
  type CheckConclusion,
  type CheckOutput,
  type CheckRun,
  type CheckStatus,
  type Run,
  type StatusState,
} from '../model.js';
import {
  createCheckRun,
  createStatus,
  updateCheckRun,
  workflowRunSuite,
  type CheckRunInput,
} from '../ops/checks.js';
import { annotationJson, checkRunJson, statusJson } from '../render/checks.js';
import { repoApiUrl, repoJson } from '../render/repos.js';
import {
  actorOf,
  bodyObject,
  HttpError,
  intParam,
  json,
  listResponse,
  paginate,
  param,
  repoOf,
  str,
  validationFailed,
  type ApiRequest,
  type Handler,
} from '../server/http.js';

function checkInput(body: Record<string, unknown>): CheckRunInput {
  const input: CheckRunInput = {};
  const name = str(body, 'name');
  if (name !== undefined) input.name = name;
  const status = str(body, 'status');
  if (status !== undefined) input.status = status as CheckStatus;
  const conclusion = str(body, 'conclusion');
  if (conclusion !== undefined) input.conclusion = conclusion as CheckConclusion;
  const startedAt = str(body, 'started_at');
  if (startedAt !== undefined) input.startedAt = startedAt;
  const completedAt = str(body, 'completed_at');
  if (completedAt !== undefined) input.completedAt = completedAt;
  const externalId = str(body, 'external_id');
  if (externalId !== undefined) input.externalId = externalId;
  const detailsUrl = str(body, 'details_url');
  if (detailsUrl !== undefined) input.detailsUrl = detailsUrl;
  const output = body['output'];
  if (output && typeof output === 'object') {
    const o = output as Record<string, unknown>;
    const out: Partial<CheckOutput> = {};
    if (typeof o['title'] === 'string') out.title = o['title'];
    if (typeof o['summary'] === 'string') out.summary = o['summary'];
    if (typeof o['text'] === 'string') out.text = o['text'];
    if (typeof o['summary'] === 'string' && o['summary'].length > 65_535)
      throw validationFailed('output.summary is too long (maximum is 65535 characters)');
    input.output = out;
  }
  return input;
}

// Only a GitHub App may write check runs, and only its own.
function requireApp(req: ApiRequest): void {
  if (req.auth.kind !== 'installation')
    throw new HttpError(403, 'You must authenticate via a GitHub App.');
}

/**
 * The App a check run is written as: a job's GITHUB_TOKEN writes as GitHub Actions, like the
 * checks of the CI run it belongs to; any other installation token as this App.
 */
function writerApp(req: ApiRequest): AppInfo {
  return jobRunOf(req) ? req.core.ciApp : req.core.app;
}

/** The workflow run whose job's GITHUB_TOKEN made the request, if one did. */
function jobRunOf(req: ApiRequest): Run | undefined {
  const token = req.auth.token === null ? undefined : req.core.tokens.get(req.auth.token);
  return token?.jobRunId === undefined ? undefined : repoOf(req).runs.get(token.jobRunId);
}

function checkRunOf(req: ApiRequest): CheckRun {
  const run = repoOf(req).checkRuns.get(intParam(req, 'check_run_id'));
  if (!run) throw new HttpError(404, 'Not Found');
  return run;
}

function shaOf(req: ApiRequest): string {
  const ref = param(req, 'ref');
  const sha = resolveRef(repoOf(req), ref);
  if (!sha) throw validationFailed(`No commit found for SHA: ${ref}`);
  return sha;
}

export const checkRoutes: [string, Handler][] = [
  [
    'POST /repos/{owner}/{repo}/check-runs',
    (req) => {
      requireApp(req);
      const repo = repoOf(req);
      const body = bodyObject(req);
      const sha = str(body, 'head_sha') ?? '';
      // A job's check run on its own commit joins its workflow run's check suite, as the job's
      // own check runs do.
      const job = jobRunOf(req);
      const { run } = createCheckRun(
        req.core,
        repo,
        writerApp(req),
        sha,
        checkInput(body),
        job && job.headSha === sha ? workflowRunSuite(req.core, job) : undefined,
      );
      return json(201, checkRunJson(req.core, repo, run));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/check-runs/{check_run_id}',
    (req) => json(200, checkRunJson(req.core, repoOf(req), checkRunOf(req))),
  ],
  [
    // A workflow job is a check run with the job's id (its `check_run_url`), annotated by its
    // workflow commands; an App's own check runs carry the annotations of its `output`.
    'GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations',
    (req) => {
      const repo = repoOf(req);
      const run = checkRunOf(req);
      return listResponse(req, run.annotations, (a) =>
        annotationJson(req.core, repo, run.headSha, a),
      );
    },
  ],
  [
    'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}',
    (req) => {
      requireApp(req);
      const repo = repoOf(req);
      const run = checkRunOf(req);
      const writer = writerApp(req);
      if (run.app.id !== writer.id)
        throw new HttpError(
          403,
          'Invalid app_id `' +
            writer.id +
            '` - check run can only be modified by the GitHub App that created it.',
        );
      updateCheckRun(req.core, repo, run, checkInput(bodyObject(req)));
      return json(200, checkRunJson(req.core, repo, run));
    },
  ],
  [
    'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
    (req) => {
      const repo = repoOf(req);
      const sha = shaOf(req);
      const name = req.query.get('check_name');
      const status = req.query.get('status');
      const appId = req.query.get('app_id');
      let runs = checkRunsOn(repo, sha)
        .filter((r) => !name || r.name === name)
        .filter((r) => !status || r.status === status)
        .filter((r) => !appId || String(r.app.id) === appId)
        .sort((a, b) => b.id - a.id);
      // `latest` keeps the newest check run of each name within its check suite (a re-run's
      // replaces the job's first); suites of other workflow runs on the commit stay listed
      // (lewagon/wait-on-check-action#156, wechuli/allcheckspassed#104).
      if ((req.query.get('filter') ?? 'latest') === 'latest') {
        const seen = new Set<string>();
        runs = runs.filter((r) =>
          seen.has(`${r.suite.id}:${r.name}`) ? false : (seen.add(`${r.suite.id}:${r.name}`), true),
        );
      }
      const { page, headers } = paginate(req, runs);
      return {
        status: 200,
        body: {
          total_count: runs.length,
          check_runs: page.map((r) => checkRunJson(req.core, repo, r)),
        },
        headers,
      };
    },
  ],
  [
    'GET /repos/{owner}/{repo}/commits/{ref}/status',
    (req) => {
      const repo = repoOf(req);
      const sha = shaOf(req);
      const latest = new Map<string, (typeof repo.statuses)[number]>();
      for (const s of [...statusesOn(repo, sha)].sort((a, b) => a.id - b.id))
        latest.set(s.context, s);
      const statuses = [...latest.values()];
      const state: StatusState = statuses.some((s) => s.state === 'failure' || s.state === 'error')
        ? 'failure'
        : statuses.length === 0 || statuses.some((s) => s.state === 'pending')
          ? 'pending'
          : 'success';
      return json(200, {
        state,
        statuses: statuses.map((s) => statusJson(req.core, repo, s)),
        sha,
        total_count: statuses.length,
        repository: repoJson(req.core, repo),
        commit_url: `${repoApiUrl(req.core, repo)}/commits/${sha}`,
        url: `${repoApiUrl(req.core, repo)}/commits/${sha}/status`,
      });
    },
  ],
  [
    'GET /repos/{owner}/{repo}/commits/{ref}/statuses',
    (req) => {
      const repo = repoOf(req);
      const sha = shaOf(req);
      const list = [...statusesOn(repo, sha)].sort((a, b) => b.id - a.id);
      const { page, headers } = paginate(req, list);
      return { status: 200, body: page.map((s) => statusJson(req.core, repo, s)), headers };
    },
  ],
  [
    'POST /repos/{owner}/{repo}/statuses/{sha}',
    (req) => {
      const repo = repoOf(req);
      const body = bodyObject(req);
      const state = str(body, 'state') as StatusState;
      const input: Parameters<typeof createStatus>[3] = { state };
      const context = str(body, 'context');
      if (context !== undefined) input.context = context;
      const description = str(body, 'description');
      if (description !== undefined) input.description = description;
      const target = str(body, 'target_url');
      if (target !== undefined) input.targetUrl = target;
      const { status } = createStatus(req.core, repo, param(req, 'sha'), input, actorOf(req));
      return json(201, statusJson(req.core, repo, status));
    },
  ],
];
