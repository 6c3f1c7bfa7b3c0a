import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Core } from './core.js';
import type { PermissionLevel, Run } from './model.js';
import type { OidcIssuer } from './oidc/issuer.js';
import { userJson } from './render/accounts.js';
import { repoJson } from './render/repos.js';
import { issueJobToken } from './server/auth.js';
import { webhookSchema } from './server/openapi.js';
import { checkValue } from './server/schema-check.js';
import { orgJson } from './webhooks/sender.js';

// What a GitHub-hosted runner hands a JavaScript action step of a run, so a test can run the
// real action against the double. Names and file layout follow GitHub's "Store information in
// variables" (default environment variables) and the runner's _temp layout.

export interface ActionsEnvOptions {
  // GITHUB_WORKSPACE (default: a new temporary directory).
  workspace?: string;
  // RUNNER_TEMP (default: a new temporary directory).
  runnerTemp?: string;
  // The step's `with:`; each becomes INPUT_<NAME> (upper case, spaces to '_').
  inputs?: Record<string, string>;
  // The action's action.yml: its input defaults apply to inputs not given, as on a runner.
  actionYml?: string;
  // The step's `env:`.
  env?: Record<string, string>;
  // The job whose `permissions:` apply (default: the workflow's first job).
  job?: string;
  // ACTIONS_ID_TOKEN_REQUEST_*: GitHub sets them only when the job has `id-token: write`.
  // true insists (throws if the workflow does not grant it), false leaves them out;
  // default: as the workflow says.
  idToken?: boolean;
}

type TokenPermissions = Record<string, PermissionLevel>;

interface WorkflowFile {
  permissions?: unknown;
  jobs?: Record<string, { permissions?: unknown }>;
}

// The permission scopes a workflow's `permissions:` can name (besides id-token).
const SCOPES = [
  'actions',
  'attestations',
  'checks',
  'contents',
  'deployments',
  'discussions',
  'issues',
  'packages',
  'pages',
  'pull-requests',
  'repository-projects',
  'security-events',
  'statuses',
];

function workflowFile(run: Run): WorkflowFile {
  const path = `.github/workflows/${run.workflow.file}`;
  const text = run.repo.commits.get(run.headSha)?.tree[path];
  if (text === undefined) return {};
  return (parse(text) as WorkflowFile | null) ?? {};
}

// The job's declared `permissions:` (job level wins over workflow level), or undefined when
// neither declares any.
function declaredPermissions(
  run: Run,
  job: string | undefined,
): Record<string, string> | undefined {
  const wf = workflowFile(run);
  const jobs = wf.jobs ?? {};
  const chosen = job ?? Object.keys(jobs)[0];
  const raw = (chosen ? jobs[chosen]?.permissions : undefined) ?? wf.permissions;
  if (raw === undefined || raw === null) return undefined;
  if (raw === 'read-all' || raw === 'write-all') {
    const level = raw === 'read-all' ? 'read' : 'write';
    return Object.fromEntries([...SCOPES, 'id-token'].map((s) => [s, level]));
  }
  if (typeof raw !== 'object') return {};
  return Object.fromEntries(
    Object.entries(raw as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
  );
}

// Workflow scope names use '-', App permissions '_' (pull-requests → pull_requests).
export function tokenPermissions(declared: Record<string, string>): TokenPermissions {
  const out: TokenPermissions = {};
  for (const [scope, level] of Object.entries(declared)) {
    if (scope === 'id-token' || (level !== 'read' && level !== 'write')) continue;
    out[scope.replaceAll('-', '_')] = level;
  }
  return out;
}

/**
 * The job's GITHUB_TOKEN: `permissions` if given, else what the workflow declares, else
 * `contents: read` (GitHub's restricted default).
 */
export function jobToken(
  core: Core,
  run: Run,
  permissions?: TokenPermissions,
  job?: string,
): string {
  const declared = declaredPermissions(run, job);
  const granted =
    permissions ?? (declared ? tokenPermissions(declared) : { contents: 'read' as const });
  return issueJobToken(core, run.repo, run.id, granted).token;
}

function workflowDispatchPayload(core: Core, run: Run): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    inputs: Object.keys(run.inputs).length > 0 ? { ...run.inputs } : null,
    ref: `refs/${run.refType === 'tag' ? 'tags' : 'heads'}/${run.headBranch}`,
    repository: repoJson(core, run.repo),
    sender: userJson(core, run.actor),
    workflow: `.github/workflows/${run.workflow.file}`,
  };
  if (run.repo.owner.type === 'Organization')
    payload['organization'] = orgJson(core, run.repo.owner);
  if (core.options.selfCheck) {
    const schema = webhookSchema('workflow_dispatch', undefined);
    if (schema) core.selfCheck('GITHUB_EVENT_PATH workflow_dispatch', checkValue(schema, payload));
  }
  return payload;
}

function inputName(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

// Only the `github` context is modelled, enough for defaults like `${{ github.token }}`.
function renderDefault(value: string, github: (key: string) => string): string {
  return value.replace(/\$\{\{\s*github\.([A-Za-z_]+)\s*\}\}/g, (_m, key: string) => github(key));
}

async function actionDefaults(path: string): Promise<Record<string, string>> {
  const action = parse(await readFile(path, 'utf8')) as {
    inputs?: Record<string, { default?: unknown }>;
  } | null;
  const out: Record<string, string> = {};
  for (const [name, def] of Object.entries(action?.inputs ?? {})) {
    if (def?.default !== undefined && def.default !== null) out[name] = String(def.default);
  }
  return out;
}

export async function actionsEnv(
  core: Core,
  oidc: OidcIssuer,
  run: Run,
  options: ActionsEnvOptions = {},
): Promise<Record<string, string>> {
  const workspace = options.workspace ?? (await mkdtemp(join(tmpdir(), 'double-workspace-')));
  const temp = options.runnerTemp ?? (await mkdtemp(join(tmpdir(), 'double-runner-temp-')));
  const repo = run.repo;
  const refPrefix = run.refType === 'tag' ? 'refs/tags/' : 'refs/heads/';
  const ref = `${refPrefix}${run.headBranch}`;
  const workflowPath = `.github/workflows/${run.workflow.file}`;

  const eventPath = join(temp, '_github_workflow', 'event.json');
  await mkdir(join(temp, '_github_workflow'), { recursive: true });
  await writeFile(eventPath, JSON.stringify(workflowDispatchPayload(core, run), null, 2));
  const commands = join(temp, '_runner_file_commands');
  await mkdir(commands, { recursive: true });
  const commandFile = async (prefix: string): Promise<string> => {
    const file = join(commands, `${prefix}_${randomUUID()}`);
    await writeFile(file, '');
    return file;
  };

  const env: Record<string, string> = {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_SERVER_URL: core.url,
    GITHUB_API_URL: core.apiUrl,
    GITHUB_GRAPHQL_URL: `${core.url}/api/graphql`,
    GITHUB_REPOSITORY: repo.fullName,
    GITHUB_REPOSITORY_ID: String(repo.id),
    GITHUB_REPOSITORY_OWNER: repo.owner.login,
    GITHUB_REPOSITORY_OWNER_ID: String(repo.owner.id),
    GITHUB_RUN_ID: String(run.id),
    GITHUB_RUN_NUMBER: String(run.runNumber),
    GITHUB_RUN_ATTEMPT: String(run.runAttempt),
    GITHUB_REF: ref,
    GITHUB_REF_NAME: run.headBranch,
    GITHUB_REF_TYPE: run.refType,
    GITHUB_REF_PROTECTED: String(run.refType === 'branch' && repo.protection.has(run.headBranch)),
    GITHUB_SHA: run.headSha,
    GITHUB_HEAD_REF: '',
    GITHUB_BASE_REF: '',
    GITHUB_EVENT_NAME: run.event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_WORKFLOW: run.workflow.name,
    GITHUB_WORKFLOW_REF: `${repo.fullName}/${workflowPath}@${ref}`,
    GITHUB_WORKFLOW_SHA: run.headSha,
    GITHUB_JOB: options.job ?? 'work',
    GITHUB_ACTOR: run.actor.login,
    GITHUB_ACTOR_ID: String(run.actor.id),
    GITHUB_TRIGGERING_ACTOR: run.actor.login,
    GITHUB_WORKSPACE: workspace,
    GITHUB_RETENTION_DAYS: '90',
    GITHUB_OUTPUT: await commandFile('set_output'),
    GITHUB_STEP_SUMMARY: await commandFile('step_summary'),
    GITHUB_ENV: await commandFile('set_env'),
    GITHUB_PATH: await commandFile('add_path'),
    GITHUB_STATE: await commandFile('save_state'),
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
    RUNNER_NAME: 'GitHub Actions 1',
    RUNNER_ENVIRONMENT: 'github-hosted',
    RUNNER_TEMP: temp,
    RUNNER_TOOL_CACHE: join(temp, '_tool'),
  };

  const declared = declaredPermissions(run, options.job);
  const granted = declared?.['id-token'] === 'write';
  if (options.idToken === true && !granted) {
    throw new Error(
      `github double: ${workflowPath} does not grant id-token: write, so GitHub would not set ACTIONS_ID_TOKEN_REQUEST_URL`,
    );
  }
  if (options.idToken ?? granted) {
    env['ACTIONS_ID_TOKEN_REQUEST_URL'] = oidc.requestUrl(run.id);
    env['ACTIONS_ID_TOKEN_REQUEST_TOKEN'] = oidc.requestToken(run.id);
  }

  let token: string | undefined;
  const github = (key: string): string => {
    if (key === 'token') {
      token ??= jobToken(core, run, undefined, options.job);
      return token;
    }
    const name = `GITHUB_${key.toUpperCase()}`;
    return env[name] ?? '';
  };
  const inputs = {
    ...(options.actionYml ? await actionDefaults(options.actionYml) : {}),
    ...options.inputs,
  };
  for (const [name, value] of Object.entries(inputs)) {
    env[inputName(name)] =
      options.inputs?.[name] !== undefined ? value : renderDefault(value, github);
  }
  return { ...env, ...options.env };
}
