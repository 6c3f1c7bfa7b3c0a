import { parse as parseYaml } from 'yaml';
import { DISPATCH_INPUT_NAMES } from '../../../src/protocol/assignment.js';
import { WORKFLOW_RUN_NAME } from '../../../src/protocol/run-name.js';
import type { Core } from '../core.js';
import { createCommit } from '../git.js';
import { nodeId } from '../ids.js';
import type { Account, Installation, Repo, RoleName, Workflow, WorkflowInput } from '../model.js';

export const WORKER_WORKFLOW = 'agent-worker.yml';

// The worker workflow declares exactly the dispatch inputs (docs/worker.md): identifiers only.
export const WORKER_INPUTS = DISPATCH_INPUT_NAMES;

export const WORKER_RUN_NAME = WORKFLOW_RUN_NAME;

export interface WorkflowSpec {
  file: string;
  name?: string;
  inputs?: Record<string, WorkflowInput> | readonly string[];
  runName?: string | null;
  // The workflow's top-level `permissions:` (the job's GITHUB_TOKEN and id-token access).
  permissions?: Record<string, 'read' | 'write' | 'none'>;
}

export interface CreateRepoOptions {
  owner: string;
  name: string;
  defaultBranch?: string;
  files?: Record<string, string>;
  private?: boolean;
  ownerType?: 'User' | 'Organization';
  // Install the app on the owner (default true).
  installed?: boolean;
  // Defaults to the worker workflow of docs/worker.md.
  workflows?: WorkflowSpec[];
  // "Automatically delete head branches" (default off, as on GitHub).
  deleteBranchOnMerge?: boolean;
}

export function ensureInstallation(core: Core, owner: Account): Installation {
  const key = owner.login.toLowerCase();
  const known = core.installations.get(key);
  if (known) return known;
  const id = core.ids.next('installation');
  const inst: Installation = {
    id,
    nodeId: nodeId('MDIz', id),
    account: owner,
    createdAt: core.now(),
    removed: new Set(),
    suspendedAt: null,
    suspendedBy: null,
  };
  core.installations.set(key, inst);
  return inst;
}

function workflowYaml(spec: WorkflowSpec, inputs: Record<string, WorkflowInput>): string {
  const lines = [`name: ${spec.name ?? spec.file}`];
  if (spec.runName) lines.push(`run-name: ${spec.runName}`);
  lines.push('on:', '  workflow_dispatch:', '    inputs:');
  const permissions = Object.entries(spec.permissions ?? {});
  for (const [name, def] of Object.entries(inputs)) {
    lines.push(
      `      ${name}:`,
      `        type: string`,
      `        required: ${def.required === true}`,
    );
  }
  if (permissions.length > 0) {
    lines.push('permissions:', ...permissions.map(([k, v]) => `  ${k}: ${v}`));
  }
  lines.push(
    'jobs:',
    '  work:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    '      - run: echo working',
  );
  return `${lines.join('\n')}\n`;
}

/** A workflow as GitHub reads it from its file: `name`, `run-name`, workflow_dispatch inputs. */
export function workflowFromYaml(file: string, text: string): WorkflowSpec {
  const doc = (parseYaml(text) ?? {}) as {
    name?: string;
    'run-name'?: string;
    on?: {
      workflow_dispatch?: { inputs?: Record<string, { required?: boolean; default?: unknown }> };
    };
    permissions?: Record<string, 'read' | 'write' | 'none'>;
  };
  const declared = doc.on?.workflow_dispatch?.inputs ?? {};
  return {
    file,
    name: doc.name ?? file,
    runName: doc['run-name'] ?? null,
    inputs: Object.fromEntries(
      Object.entries(declared).map(([name, def]) => [
        name,
        {
          required: def?.required === true,
          ...(def?.default !== undefined ? { default: String(def.default) } : {}),
        },
      ]),
    ),
    ...(doc.permissions ? { permissions: doc.permissions } : {}),
  };
}

export function addWorkflow(core: Core, repo: Repo, spec: WorkflowSpec): Workflow {
  const inputs: Record<string, WorkflowInput> = Array.isArray(spec.inputs)
    ? Object.fromEntries((spec.inputs as readonly string[]).map((n) => [n, {}]))
    : { ...((spec.inputs as Record<string, WorkflowInput> | undefined) ?? {}) };
  const id = core.ids.next('workflow');
  const wf: Workflow = {
    id,
    nodeId: nodeId('W', id),
    file: spec.file,
    name: spec.name ?? spec.file,
    inputs,
    runName: spec.runName ?? null,
    runCount: 0,
    createdAt: core.now(),
  };
  repo.workflows.set(spec.file, wf);
  return wf;
}

export function defaultWorkflows(): WorkflowSpec[] {
  return [
    {
      file: WORKER_WORKFLOW,
      name: 'agent-coordinator worker',
      inputs: Object.fromEntries(WORKER_INPUTS.map((n) => [n, { required: true }])),
      runName: WORKER_RUN_NAME,
      // As the worker template asks: nothing but reading the code and an OIDC token.
      permissions: { contents: 'read', 'id-token': 'write' },
    },
  ];
}

export function createRepo(core: Core, options: CreateRepoOptions): Repo {
  const fullName = `${options.owner}/${options.name}`;
  if (core.findRepo(fullName)) throw new Error(`github double: repository ${fullName} exists`);
  const owner = core.account(options.owner, options.ownerType ?? 'Organization');
  const id = core.ids.next('repo');
  const now = core.now();
  const repo: Repo = {
    id,
    nodeId: nodeId('R', id),
    owner,
    name: options.name,
    fullName,
    private: options.private ?? false,
    fork: false,
    parent: null,
    deleteBranchOnMerge: options.deleteBranchOnMerge ?? false,
    defaultBranch: options.defaultBranch ?? 'main',
    createdAt: now,
    pushedAt: now,
    commits: new Map(),
    refs: new Map(),
    issues: new Map(),
    pulls: new Map(),
    nextNumber: 1,
    labels: new Map(),
    comments: new Map(),
    roles: new Map([[owner.login.toLowerCase(), 'admin']]),
    workflows: new Map(),
    runs: new Map(),
    checkRuns: new Map(),
    checkRunsBySha: new Map(),
    checkRunsBySuite: new Map(),
    checkSuites: new Map(),
    statuses: [],
    statusesBySha: new Map(),
    protection: new Map(),
    mergeQueues: new Map(),
  };
  const tree: Record<string, string> = { 'README.md': `# ${options.name}\n`, ...options.files };
  // A workflow file the test commits is the workflow, as on GitHub: its name, run-name and
  // dispatch inputs come from the file, not from the default declaration.
  const workflows = (options.workflows ?? defaultWorkflows()).map((wf) => {
    const text = tree[`.github/workflows/${wf.file}`];
    return text === undefined ? wf : workflowFromYaml(wf.file, text);
  });
  for (const wf of workflows) {
    const w = addWorkflow(core, repo, wf);
    tree[`.github/workflows/${wf.file}`] ??= workflowYaml(wf, w.inputs);
  }
  const root = createCommit(core, repo, {
    parents: [],
    message: 'Initial commit',
    tree,
    author: owner,
  });
  repo.refs.set(`heads/${repo.defaultBranch}`, root.sha);
  core.repos.set(fullName.toLowerCase(), repo);
  if (options.installed !== false) ensureInstallation(core, owner);
  core.changed('repo', fullName);
  return repo;
}

// A fork shares the parent's commit objects, like a GitHub fork network; its issues and PRs are
// numbered from 1, as any repository's.
export function ensureFork(core: Core, parent: Repo, owner: string): Repo {
  const fullName = `${owner}/${parent.name}`;
  const known = core.findRepo(fullName);
  if (known) return known;
  const account = core.account(owner);
  const id = core.ids.next('repo');
  const fork: Repo = {
    ...parent,
    id,
    nodeId: nodeId('R', id),
    owner: account,
    fullName,
    fork: true,
    parent,
    refs: new Map(parent.refs),
    issues: new Map(),
    pulls: new Map(),
    nextNumber: 1,
    labels: new Map(),
    comments: new Map(),
    roles: new Map([[account.login.toLowerCase(), 'admin']]),
    workflows: new Map(),
    runs: new Map(),
    checkRuns: new Map(),
    checkRunsBySha: new Map(),
    checkRunsBySuite: new Map(),
    checkSuites: new Map(),
    statuses: [],
    statusesBySha: new Map(),
    protection: new Map(),
    mergeQueues: new Map(),
  };
  core.repos.set(fullName.toLowerCase(), fork);
  return fork;
}

/** The repository a fork network grew from: a PR's head and base must share one. */
export function networkRoot(repo: Repo): Repo {
  let root = repo;
  while (root.parent) root = root.parent;
  return root;
}

export function roleOf(repo: Repo, login: string): RoleName {
  const role = repo.roles.get(login.toLowerCase());
  if (role) return role;
  return repo.private ? 'none' : 'read';
}

// GitHub's legacy `permission` folds maintain into write and triage into read.
export function legacyPermission(role: RoleName): 'admin' | 'write' | 'read' | 'none' {
  if (role === 'admin') return 'admin';
  if (role === 'maintain' || role === 'write') return 'write';
  if (role === 'triage' || role === 'read') return 'read';
  return 'none';
}
