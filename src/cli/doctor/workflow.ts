import { parseDocument } from 'yaml';
import { DISPATCH_INPUT_NAMES } from '../../protocol/assignment.js';

/** The inputs the coordinator sends with every dispatch, and the only ones. */
export const WORKER_INPUT_NAMES = DISPATCH_INPUT_NAMES;

/** Where a workflow points the worker action: a tag or a commit, and the version it says. */
export interface ActionPin {
  ref: string;
  /** From a `# vX.Y.Z` comment, or the ref itself when it is such a tag. */
  version?: string;
}

/** The first `uses: <action>@<ref>` line of the worker action, with its `# vX.Y.Z` comment. */
export function findActionPin(text: string, action: string): ActionPin | undefined {
  const name = action.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const line = new RegExp(
    `^[ \\t]*(?:- )?uses:[ \\t]*['"]?${name}@([^\\s'"#]+)['"]?(?:[ \\t]+#[ \\t]*(\\S+))?`,
    'mi',
  );
  const m = line.exec(text);
  if (!m) return undefined;
  const ref = m[1]!;
  const version = [m[2], ref].map((v) => /^v?(\d+\.\d+\.\d+)$/.exec(v ?? '')?.[1]).find(Boolean);
  return version ? { ref, version } : { ref };
}

/** How far `pinned` is from `current` (both X.Y.Z), in words; undefined when equal. */
export function versionDistance(pinned: string, current: string): string | undefined {
  const a = pinned.split('.').map(Number);
  const b = current.split('.').map(Number);
  for (const [i, part] of ['major', 'minor', 'patch'].entries()) {
    const d = b[i]! - a[i]!;
    if (d !== 0) return d > 0 ? `${d} ${part} behind` : `${-d} ${part} ahead`;
  }
  return undefined;
}

export interface WorkflowFacts {
  /** YAML problems; when present nothing else is meaningful. */
  errors: string[];
  dispatchable: boolean;
  inputs: string[];
  /** Names used as `secrets.X` / `vars.X` anywhere in the file (GITHUB_TOKEN left out). */
  secrets: string[];
  variables: string[];
}

/** Read what the doctor needs from a workflow file's text. */
export function readWorkflow(text: string): WorkflowFacts {
  const facts: WorkflowFacts = {
    errors: [],
    dispatchable: false,
    inputs: [],
    secrets: references(text, 'secrets').filter((n) => n !== 'GITHUB_TOKEN'),
    variables: references(text, 'vars'),
  };
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    facts.errors = doc.errors.map((e) => e.message.split('\n')[0] ?? e.message);
    return facts;
  }
  const root: unknown = doc.toJS();
  if (!isRecord(root)) {
    facts.errors = ['the file is not a mapping'];
    return facts;
  }
  // `on: workflow_dispatch`, `on: [push, workflow_dispatch]` or `on: { workflow_dispatch: … }`.
  const on = root['on'] ?? root['true'];
  if (on === 'workflow_dispatch') facts.dispatchable = true;
  else if (Array.isArray(on)) facts.dispatchable = on.includes('workflow_dispatch');
  else if (isRecord(on) && 'workflow_dispatch' in on) {
    facts.dispatchable = true;
    const dispatch = on['workflow_dispatch'];
    const inputs = isRecord(dispatch) ? dispatch['inputs'] : undefined;
    if (isRecord(inputs)) facts.inputs = Object.keys(inputs);
  }
  return facts;
}

export interface InputsCheck {
  missing: string[];
  extra: string[];
}

export function compareInputs(declared: readonly string[]): InputsCheck {
  const expected = new Set<string>(WORKER_INPUT_NAMES);
  const have = new Set(declared);
  return {
    missing: WORKER_INPUT_NAMES.filter((n) => !have.has(n)),
    extra: declared.filter((n) => !expected.has(n)),
  };
}

function references(text: string, context: 'secrets' | 'vars'): string[] {
  const names = new Set<string>();
  // Only inside ${{ }} expressions and `if:` conditions, where contexts are evaluated.
  const pattern = new RegExp(`\\b${context}\\.([A-Za-z_][A-Za-z0-9_]*)`, 'g');
  for (const line of text.split('\n')) {
    const code = line.replace(/(^|\s)#.*$/, '');
    for (const m of code.matchAll(pattern)) names.add(m[1]!);
  }
  return [...names].sort();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
