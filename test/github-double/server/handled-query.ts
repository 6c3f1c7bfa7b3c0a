// Documented query parameters the double honours, per route. A documented parameter missing
// here would be silently ignored, so it is reported instead (like a 501 for an endpoint).
const PAGE = ['per_page', 'page'];
const RUN_FILTERS = [
  'branch',
  'event',
  'status',
  'actor',
  'head_sha',
  'check_suite_id',
  'created',
  'exclude_pull_requests',
  ...PAGE,
];

export const HANDLED_QUERY: Readonly<Record<string, readonly string[]>> = {
  'GET /app/installations': PAGE,
  'GET /app/hook/deliveries': ['per_page', 'cursor', 'status'],
  'GET /repos/{owner}/{repo}/contents/{path}': ['ref'],
  'GET /repos/{owner}/{repo}/branches': PAGE,
  'GET /repos/{owner}/{repo}/commits/{ref}': PAGE,
  'GET /repos/{owner}/{repo}/compare/{basehead}': PAGE,
  'GET /repos/{owner}/{repo}/issues': ['state', 'labels', ...PAGE],
  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': ['since', ...PAGE],
  'GET /repos/{owner}/{repo}/issues/{issue_number}/labels': PAGE,
  'GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions': PAGE,
  'GET /repos/{owner}/{repo}/pulls': ['state', 'head', 'base', 'sort', 'direction', ...PAGE],
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/commits': PAGE,
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/files': PAGE,
  'GET /repos/{owner}/{repo}/git/trees/{tree_sha}': ['recursive'],
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews': PAGE,
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/comments': PAGE,
  'GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls': PAGE,
  'GET /repos/{owner}/{repo}/actions/workflows': PAGE,
  'GET /repos/{owner}/{repo}/actions/runs': RUN_FILTERS,
  'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs': RUN_FILTERS,
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}': ['exclude_pull_requests'],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs': ['filter', ...PAGE],
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations': PAGE,
  'GET /repos/{owner}/{repo}/commits/{ref}/check-runs': [
    'check_name',
    'status',
    'filter',
    'app_id',
    ...PAGE,
  ],
  'GET /repos/{owner}/{repo}/commits/{ref}/status': PAGE,
  'GET /repos/{owner}/{repo}/commits/{ref}/statuses': PAGE,
};
