import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { repoConfigSchema, type RepoConfig } from './schema.js';

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
