import type { Run } from '../model.js';
import {
  cancelRun,
  dispatchWorkflow,
  findJob,
  findWorkflow,
  latestJobs,
  rerunFailedJobs,
} from '../ops/actions.js';
import { jobJson, runHtmlUrl, runJson, workflowJson } from '../render/actions.js';
import {
  actorOf,
  bodyObject,
  intParam,
  json,
  notFound,
  paginate,
  param,
  repoOf,
  str,
  type ApiRequest,
  type Handler,
} from '../server/http.js';

const CONCLUSIONS = new Set([
  'success',
  'failure',
  'neutral',
  'cancelled',
  'skipped',
  'timed_out',
  'action_required',
  'startup_failure',
  'stale',
]);

function runOf(req: ApiRequest): Run {
  const run = repoOf(req).runs.get(intParam(req, 'run_id'));
  if (!run) throw notFound();
  return run;
}

// GitHub's search date syntax: >=d, >d, <=d, <d, a..b, or a bare date (that whole day).
function createdFilter(spec: string | null): (r: Run) => boolean {
  if (!spec) return () => true;
  const at = (s: string): number => Date.parse(s);
  const range = /^(.+)\.\.(.+)$/.exec(spec);
  if (range?.[1] && range[2]) {
    const lo = at(range[1]);
    const hi = range[2] === '*' ? Infinity : at(range[2]);
    return (r) => at(r.createdAt) >= lo && at(r.createdAt) <= hi;
  }
  const cmp = /^(>=|<=|>|<)(.+)$/.exec(spec);
  if (cmp?.[1] && cmp[2]) {
    const t = at(cmp[2]);
    const op = cmp[1];
    return (r) => {
      const c = at(r.createdAt);
      return op === '>=' ? c >= t : op === '<=' ? c <= t : op === '>' ? c > t : c < t;
    };
  }
  const day = at(spec);
  return (r) =>
    at(r.createdAt) >= day && at(r.createdAt) < day + (spec.includes('T') ? 1000 : 86_400_000);
}

function listRuns(req: ApiRequest, runs: Run[]): ReturnType<Handler> {
  const branch = req.query.get('branch');
  const event = req.query.get('event');
  const status = req.query.get('status');
  const actor = req.query.get('actor');
  const headSha = req.query.get('head_sha');
  const checkSuiteId = req.query.get('check_suite_id');
  const filtered = runs
    .filter((r) => !branch || r.headBranch === branch)
    .filter((r) => !event || r.event === event)
    .filter((r) => !actor || r.actor.login.toLowerCase() === actor.toLowerCase())
    .filter((r) => !headSha || r.headSha === headSha)
    .filter((r) => !checkSuiteId || String(r.checkSuiteId) === checkSuiteId)
    .filter(createdFilter(req.query.get('created')))
    .filter(
      (r) => !status || (CONCLUSIONS.has(status) ? r.conclusion === status : r.status === status),
    )
    .sort((a, b) => b.id - a.id);
  const { page, headers } = paginate(req, filtered);
  return {
    status: 200,
    body: { total_count: filtered.length, workflow_runs: page.map((r) => runJson(req.core, r)) },
    headers,
  };
}

export const actionRoutes: [string, Handler][] = [
  [
    'GET /repos/{owner}/{repo}/actions/workflows',
    (req) => {
      const repo = repoOf(req);
      const wfs = [...repo.workflows.values()];
      return json(200, {
        total_count: wfs.length,
        workflows: wfs.map((w) => workflowJson(req.core, repo, w)),
      });
    },
  ],
  [
    'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}',
    (req) => {
      const repo = repoOf(req);
      const wf = findWorkflow(repo, param(req, 'workflow_id'));
      if (!wf) throw notFound();
      return json(200, workflowJson(req.core, repo, wf));
    },
  ],
  [
    'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
    (req) => {
      const repo = repoOf(req);
      const body = bodyObject(req);
      const { run } = dispatchWorkflow(
        req.core,
        repo,
        param(req, 'workflow_id'),
        str(body, 'ref') ?? '',
        body['inputs'],
        actorOf(req),
      );
      // The simulated worker starts only once the dispatch has been answered.
      const after = (): void => req.core.webhooks.onDispatch(run.id);
      if (body['return_run_details'] === true && !req.core.dispatchReturnsNoContent) {
        const details = {
          workflow_run_id: run.id,
          run_url: `${req.core.apiUrl}/repos/${repo.fullName}/actions/runs/${run.id}`,
          html_url: runHtmlUrl(req.core, run),
        };
        return { status: 200, body: details, after };
      }
      return { status: 204, after };
    },
  ],
  [
    'GET /repos/{owner}/{repo}/actions/runs',
    (req) => listRuns(req, [...repoOf(req).runs.values()]),
  ],
  [
    'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
    (req) => {
      const repo = repoOf(req);
      const wf = findWorkflow(repo, param(req, 'workflow_id'));
      if (!wf) throw notFound();
      return listRuns(
        req,
        [...repo.runs.values()].filter((r) => r.workflow === wf),
      );
    },
  ],
  [
    'GET /repos/{owner}/{repo}/actions/runs/{run_id}',
    (req) => json(200, runJson(req.core, runOf(req))),
  ],
  [
    'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs',
    (req) => {
      const run = runOf(req);
      // `latest` (the default): each job's newest attempt; `all`: every attempt's jobs.
      const listed = req.query.get('filter') === 'all' ? run.jobs : latestJobs(run);
      const { page, headers } = paginate(req, listed);
      return {
        status: 200,
        body: { total_count: listed.length, jobs: page.map((j) => jobJson(req.core, run, j)) },
        headers,
      };
    },
  ],
  [
    // GitHub's docs do not say whether a re-run's listing shows the jobs it did not run again;
    // the double does, each with the attempt that ran it (`run_attempt`), the stricter reading.
    'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs',
    (req) => {
      const run = runOf(req);
      const attempt = intParam(req, 'attempt_number');
      if (attempt < 1 || attempt > run.runAttempt) throw notFound();
      const listed = latestJobs({ ...run, jobs: run.jobs.filter((j) => j.runAttempt <= attempt) });
      const { page, headers } = paginate(req, listed);
      return {
        status: 200,
        body: { total_count: listed.length, jobs: page.map((j) => jobJson(req.core, run, j)) },
        headers,
      };
    },
  ],
  [
    'GET /repos/{owner}/{repo}/actions/jobs/{job_id}',
    (req) => {
      const found = findJob(repoOf(req), intParam(req, 'job_id'));
      if (!found) throw notFound();
      return json(200, jobJson(req.core, found.run, found.job));
    },
  ],
  [
    // GitHub answers with a redirect to a short-lived URL of the plain-text log.
    'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
    (req) => {
      const found = findJob(repoOf(req), intParam(req, 'job_id'));
      if (!found) throw notFound();
      return { status: 302, headers: { location: req.core.jobLogs.signedUrl(found.job) } };
    },
  ],
  [
    'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs',
    (req) => {
      const run = runOf(req);
      rerunFailedJobs(req.core, run, actorOf(req));
      // The new attempt runs once the request has been answered, as a dispatch does.
      return { status: 201, body: {}, after: () => req.core.webhooks.onRerun(run.id) };
    },
  ],
  [
    'POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel',
    (req) => {
      cancelRun(req.core, runOf(req));
      return json(202, {});
    },
  ],
  [
    'POST /repos/{owner}/{repo}/actions/runs/{run_id}/force-cancel',
    (req) => {
      cancelRun(req.core, runOf(req));
      return json(202, {});
    },
  ],
];
