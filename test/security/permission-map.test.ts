import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Octokit } from '@octokit/rest';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { WORKER_TOKEN_PERMISSIONS } from '../../src/protocol/assignment.js';
import {
  GRAPHQL_MUTATION_PERMISSIONS,
  REST_PERMISSIONS,
  type Access,
} from '../github-double/index.js';

/**
 * Every GitHub call in the code, mapped to the permission GitHub documents for it ("Permissions
 * required for GitHub Apps", kept in the double's permission table), against what the App asks
 * for in app.yml and what the worker's token is minted with. On a private repository a missing
 * permission is a 403 on day one, so a call the grant does not cover fails here.
 */
const ROOT = resolve(import.meta.dirname, '../..');
type Grant = Record<string, string>;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

const endpoints = new Octokit().rest as unknown as Record<
  string,
  Record<string, { endpoint: { DEFAULTS: { method: string; url: string } } }>
>;

interface Call {
  route: string;
  file: string;
}

/** The routes a set of files calls: `octokit.rest.<scope>.<method>` (called or paginated), route literals, mutations. */
function callsIn(files: string[]): Call[] {
  const calls: Call[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const where = relative(ROOT, file);
    for (const m of text.matchAll(/\.rest\.(\w+)\.(\w+)\s*[(,)]/g)) {
      const defaults = endpoints[m[1]!]?.[m[2]!]?.endpoint.DEFAULTS;
      if (!defaults) throw new Error(`${where}: octokit.rest.${m[1]}.${m[2]} is not an endpoint`);
      calls.push({ route: `${defaults.method} ${defaults.url}`, file: where });
    }
    for (const m of text.matchAll(/'((?:GET|POST|PUT|PATCH|DELETE) \/[^']*)'/g))
      calls.push({ route: m[1]!, file: where });
    for (const m of text.matchAll(/`mutation\s*\w*\s*(?:\([^)]*\))?\s*\{\s*(\w+)\s*\(/g))
      calls.push({ route: `mutation ${m[1]}`, file: where });
  }
  return calls;
}

function accessOf(route: string): Access | undefined {
  if (route.startsWith('mutation ')) return GRAPHQL_MUTATION_PERMISSIONS[route.slice(9)];
  return REST_PERMISSIONS[route];
}

const RANK: Record<string, number> = { read: 1, write: 2, admin: 3 };

/** The calls the grant does not cover, each with GitHub's requirement. */
function uncovered(calls: Call[], grant: Grant, asInstallation: boolean): string[] {
  const problems: string[] = [];
  for (const { route, file } of calls) {
    const access = accessOf(route);
    if (!access) {
      problems.push(`${route} (${file}): not in the permission table; look it up and add it`);
      continue;
    }
    if (access.kind === 'none') continue;
    if (access.kind === 'app-jwt') {
      if (!asInstallation) continue;
      problems.push(`${route} (${file}): needs the App's JWT, which a worker never has`);
      continue;
    }
    const ok = access.anyOf.some(
      (r) =>
        (RANK[grant[r.permission] ?? ''] ?? 0) >= RANK[r.level]! ||
        (r.permission === 'metadata' && Object.keys(grant).length > 0),
    );
    if (!ok)
      problems.push(
        `${route} (${file}): needs ${access.anyOf.map((r) => `${r.permission}: ${r.level}`).join(' or ')}`,
      );
  }
  return problems;
}

const appYml = parse(readFileSync(join(ROOT, 'app.yml'), 'utf8')) as {
  default_permissions: Grant;
};
// The doctor runs with whatever it is given and says what it could not read.
const appFiles = sources(join(ROOT, 'src')).filter(
  (f) => !f.includes('/src/worker/') && !f.includes('/src/cli/'),
);
const workerFiles = sources(join(ROOT, 'src/worker'));

describe('permission map', () => {
  it('app.yml grants every permission the coordinator calls need', () => {
    const calls = callsIn(appFiles);
    // Enough calls found that the scan is really reading the port.
    expect(new Set(calls.map((c) => c.route)).size).toBeGreaterThan(25);
    expect(calls.map((c) => c.route)).toContain('mutation enqueuePullRequest');
    expect(uncovered(calls, appYml.default_permissions, false)).toEqual([]);
  });

  it("the worker token's permissions cover every call the worker makes", () => {
    const calls = callsIn(workerFiles);
    expect(calls.length).toBeGreaterThan(3);
    expect(uncovered(calls, { ...WORKER_TOKEN_PERMISSIONS }, true)).toEqual([]);
  });

  it("fails when app.yml lacks one (statuses: read for a commit's statuses)", () => {
    const { statuses: _dropped, ...without } = appYml.default_permissions;
    expect(uncovered(callsIn(appFiles), without, false)).toContainEqual(
      expect.stringMatching(
        /^GET \/repos\/\{owner\}\/\{repo\}\/commits\/\{ref\}\/statuses .*statuses: read/,
      ),
    );
  });
});
