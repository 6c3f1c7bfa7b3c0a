import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { CONFIG_PATH, repoConfigSchema, type RepoConfig } from './schema.js';

export type ConfigResult = { ok: true; config: RepoConfig } | { ok: false; errors: string[] };

/** Validate an already-parsed config object (what Probot's context.config returns). */
export function validateConfig(raw: unknown): ConfigResult {
  const parsed = repoConfigSchema.safeParse(raw ?? undefined);
  if (parsed.success) return { ok: true, config: parsed.data };
  return { ok: false, errors: parsed.error.issues.flatMap(describeIssue) };
}

/** Parse the YAML text of `.github/agent-coordinator.yml`; a missing file means all defaults. */
export function parseConfigYaml(text: string | undefined): ConfigResult {
  if (text === undefined || text.trim() === '') return validateConfig(undefined);
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        return `YAML syntax error${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}: ${(e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`;
      }),
    };
  }
  const value: unknown = doc.toJS();
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    return { ok: false, errors: ['(root): expected a mapping of settings'] };
  }
  return validateConfig(value);
}

function describeIssue(issue: z.core.$ZodIssue): string[] {
  const path = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${path ? `${path}.` : ''}${key}: unknown key`);
  }
  return [`${path || '(root)'}: ${issue.message}`];
}

/** ['retries', 'backoff', 1] → "retries.backoff[1]" */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((part, i) =>
      typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
}

/** A file the configuration was read from: probot's config plugin follows `_extends`. */
export interface ConfigSource {
  owner: string;
  repo: string;
  path: string;
}

/**
 * Why the configuration may not come from these files, or undefined. Only a
 * `.github/agent-coordinator.yml` of the repository's own owner counts — its own, the owner's
 * `.github` repository's, or another of the owner's repositories' through `_extends` — since that
 * file is the agent's leash: no agent may change it (the publish job refuses it,
 * docs/worker.md), while any other file an `_extends` names (`repo:other/path.yml`) an agent's
 * PR could change, and another owner's repository is written by people this repository never
 * chose (docs/configuration.md).
 */
export function configSourceProblem(
  sources: readonly ConfigSource[],
  repo: { owner: string },
): string | undefined {
  for (const source of sources) {
    const where = `${source.owner}/${source.repo}:${source.path}`;
    if (source.owner.toLowerCase() !== repo.owner.toLowerCase())
      return `\`_extends\` names ${where}, a repository of another owner; the configuration comes from ${repo.owner}'s repositories only`;
    if (source.path !== CONFIG_PATH)
      return `\`_extends\` names ${where}; only ${CONFIG_PATH} files, which no agent may change, are read`;
  }
  return undefined;
}
