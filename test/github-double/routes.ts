import { actionRoutes } from './api/actions.js';
import { appRoutes } from './api/app.js';
import { checkRoutes } from './api/checks.js';
import { issueRoutes } from './api/issues.js';
import { pullRoutes } from './api/pulls.js';
import { repoRoutes } from './api/repos.js';
import { treeAndFileRoutes } from './api/trees-and-files.js';
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
    ...treeAndFileRoutes,
  ]) {
    if (table.has(key)) throw new Error(`github double: route ${key} registered twice`);
    table.set(key, handler);
  }
  return table;
}
