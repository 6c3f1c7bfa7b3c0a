import { actionRoutes } from './api/actions.js';
import { appRoutes } from './api/app.js';
import { checkRoutes } from './api/checks.js';
import { issueRoutes } from './api/issues.js';
import { pullRoutes } from './api/pulls.js';
import { repoRoutes } from './api/repos.js';
import type { RouteTable } from './server/http.js';

export function buildRoutes(): RouteTable {
  const table: RouteTable = new Map();
  for (const [key, handler] of [
    ...appRoutes,
    ...repoRoutes,
    ...issueRoutes,
    ...pullRoutes,
    ...actionRoutes,
    ...checkRoutes,
  ]) {
    if (table.has(key)) throw new Error(`github double: route ${key} registered twice`);
    table.set(key, handler);
  }
  return table;
}

// GitHub's "content-creating" requests, which its secondary rate limit caps at 80 a minute.
export const CONTENT_WRITES = new Set([
  'POST /repos/{owner}/{repo}/issues',
  'PATCH /repos/{owner}/{repo}/issues/{issue_number}',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/labels',
  'PUT /repos/{owner}/{repo}/issues/{issue_number}/labels',
  'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels',
  'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
  'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/reactions',
  'POST /repos/{owner}/{repo}/pulls',
  'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
  'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
]);
