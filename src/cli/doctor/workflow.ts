import { parseDocument } from 'yaml';
import type { WorkerInputs } from '../../core/worker-inputs.js';

/** SPEC §6: the inputs the coordinator sends with every dispatch, and the only ones. */
export const WORKER_INPUT_NAMES = [
  'task_id',
  'issue',
  'attempt',
  'mode',
  'title',
  'prompt',
  'feedback',
  'base',
  'timeout_minutes',
  'model',
  'max_turns',
] as const satisfies ReadonlyArray<keyof WorkerInputs>;

// Compile-time: every WorkerInputs key is in the list above.
type Missing = Exclude<keyof WorkerInputs, (typeof WORKER_INPUT_NAMES)[number]>;
const _exhaustive: Missing extends never ? true : never = true;
void _exhaustive;

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
