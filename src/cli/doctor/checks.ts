import { parseConfigYaml } from '../../config/load.js';
import { CONFIG_PATH, type RepoConfig } from '../../config/schema.js';
import { repoConfigSchema } from '../../config/schema.js';
import { ORDER_CHECK_NAME } from '../../core/merge/order-check.js';
import { checkActionRelease } from './action-release.js';
import { why, type DoctorClient, type InstallationInfo } from './client.js';
import { canRead, compareGrants, type AppManifest } from './permissions.js';
import { ok, problem, unknown, type Finding } from './report.js';
import {
  compareInputs,
  findActionPin,
  readWorkflow,
  versionDistance,
  WORKER_INPUT_NAMES,
} from './workflow.js';

/** What the doctor compares the repository with: this installation of the App. */
export interface DoctorExpectations {
  /** package.json's version: the worker action release that matches this App. */
  appVersion: string;
  /** `owner/repo/actions/worker`. */
  actionName: string;
  /** Where runners must reach the App; undefined when neither PUBLIC_URL nor --public-url says. */
  publicUrl?: string;
}

const list = (names: readonly string[]) => names.join(', ');

/**
 * Every check, in the order a person would fix things: the App, its installation, the
 * repository's config, label and workflow, then merging. A failed prerequisite (no
 * installation) stops the checks that need it; everything else is checked and reported.
 */
export async function runChecks(
  gh: DoctorClient,
  manifest: AppManifest,
  expect: DoctorExpectations,
): Promise<Finding[]> {
  const findings: Finding[] = [await checkPublicUrl(expect.publicUrl)];
  const app = await gh.app();
  if (!app.ok) {
    findings.push(
      problem(
        'App credentials',
        `GitHub did not accept them (${why(app)})`,
        'check APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), and GHE_HOST for GitHub Enterprise',
      ),
    );
    return findings;
  }
  findings.push(ok('App credentials', `${app.data.name} (App ID ${app.data.id})`));

  const installation = await gh.installation();
  if (!installation.ok) {
    findings.push(
      installation.status === 404
        ? problem(
            'installation',
            `the App is not installed on ${gh.owner}/${gh.repo}`,
            `install it: ${app.data.html_url}/installations/new`,
          )
        : problem('installation', `could not look it up (${why(installation)})`),
    );
    return findings;
  }
  findings.push(checkGrants(installation.data, manifest));
  await gh.useInstallation(installation.data.id);

  const repository = await gh.repository();
  if (!repository.ok) {
    findings.push(problem('repository', `could not read it (${why(repository)})`));
    return findings;
  }
  const branch = repository.data.default_branch;
  const { finding: configFinding, config } = await checkConfig(gh, branch);
  findings.push(configFinding);
  findings.push(await checkLabel(gh, config.label));
  const workflow = await checkWorkflow(gh, branch, config.worker.workflow, expect);
  findings.push(...workflow.findings);
  if (workflow.facts)
    findings.push(...(await checkActionsNames(gh, installation.data.permissions, workflow.facts)));
  findings.push(await checkWorkflowToken(gh, installation.data.permissions));
  findings.push(await checkMergeQueue(gh, branch, config));
  findings.push(await checkRequiredCheck(gh, branch, app.data.id));
  return findings;
}

function checkGrants(installation: InstallationInfo, manifest: AppManifest): Finding {
  const subject = `installation ${installation.id}${installation.account ? ` on ${installation.account.login}` : ''}`;
  if (installation.suspended_at)
    return problem(
      subject,
      `suspended since ${installation.suspended_at}`,
      'unsuspend it in the App installation settings',
    );
  const missing = compareGrants(manifest, installation);
  if (missing.permissions.length === 0 && missing.events.length === 0)
    return ok(subject, 'permissions and events as in app.yml');
  const details = [
    ...(missing.permissions.length
      ? [`permissions short of app.yml: ${list(missing.permissions)}`]
      : []),
    ...(missing.events.length ? [`events not subscribed: ${list(missing.events)}`] : []),
  ];
  return problem(
    subject,
    details.join('\n'),
    "add them in the App's settings (Permissions & events), then accept the new permissions on the installation",
  );
}

async function checkConfig(
  gh: DoctorClient,
  branch: string,
): Promise<{ finding: Finding; config: RepoConfig }> {
  const defaults = repoConfigSchema.parse(undefined);
  const subject = `config ${CONFIG_PATH}`;
  const file = await gh.file(CONFIG_PATH, branch);
  if (!file.ok) {
    if (file.status === 404)
      return { finding: ok(subject, `none on ${branch}: the defaults apply`), config: defaults };
    return { finding: unknown(subject, `could not read it (${why(file)})`), config: defaults };
  }
  const parsed = parseConfigYaml(String(file.data));
  if (!parsed.ok)
    return {
      finding: problem(
        subject,
        `invalid, so no run would start:\n${parsed.errors.map((e) => `- ${e}`).join('\n')}`,
        `fix the file on ${branch}; the checks below use the defaults meanwhile`,
      ),
      config: defaults,
    };
  return { finding: ok(subject, 'valid'), config: parsed.config };
}

async function checkLabel(gh: DoctorClient, name: string): Promise<Finding> {
  const subject = `label "${name}"`;
  const label = await gh.label(name);
  if (label.ok) return ok(subject, 'exists');
  if (label.status === 404)
    return problem(
      subject,
      `does not exist in ${gh.owner}/${gh.repo}: nobody can add it to an issue to start a run`,
      `create it under Issues → Labels (or \`gh label create ${name} -R ${gh.owner}/${gh.repo}\`)`,
    );
  return unknown(subject, `could not check it (${why(label)})`);
}

/**
 * The worker calls the App at PUBLIC_URL (the coordinator_url input) for its assignment, so
 * that URL must answer from outside the App's own process; this asks from the doctor's.
 */
async function checkPublicUrl(publicUrl: string | undefined): Promise<Finding> {
  const subject = 'PUBLIC_URL';
  if (!publicUrl)
    return unknown(
      subject,
      'not given, so not checked: the worker asks the App for its task there',
      'set PUBLIC_URL or pass --public-url https://…',
    );
  const url = `${publicUrl.replace(/\/+$/, '')}/healthz`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    const body = await response.text();
    // Setup mode answers 200 too, so that a container may run until it is registered
    // (docs/running.md "Setup mode"), but no worker gets a task from it.
    if (response.ok && healthStatus(body) === 'setup')
      return problem(
        subject,
        `${url} answers from setup mode: the App at PUBLIC_URL has no credentials`,
        'give that process APP_ID and the private key, or finish the registration on its /probot page and restart it',
      );
    if (response.ok) return ok(subject, `${url} answers ${response.status}`);
    return problem(
      subject,
      `${url} answers ${response.status}`,
      response.status === 503
        ? 'the App runs but cannot reach its database'
        : 'point PUBLIC_URL at the running App (GET /healthz answers 200 there)',
    );
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return problem(
      subject,
      `${url} does not answer (${cause ?? (error as Error).message}): workers could not get their tasks`,
      "make the App reachable from GitHub's runners at PUBLIC_URL",
    );
  }
}

function healthStatus(body: string): unknown {
  try {
    return (JSON.parse(body) as { status?: unknown } | null)?.status;
  } catch {
    return undefined;
  }
}

function checkActionPin(text: string, expect: DoctorExpectations, subject: string): Finding {
  const pin = findActionPin(text, expect.actionName);
  const current = `v${expect.appVersion}`;
  const fix = `\`npx agent-coordinator@${expect.appVersion} init --force\` pins ${expect.actionName} to ${current}`;
  if (!pin)
    return problem(
      subject,
      `does not use the worker action ${expect.actionName}`,
      `${fix} (a workflow with an App key instead is the old template: the key is no longer needed)`,
    );
  if (!pin.version)
    return /^v\d+$/.test(pin.ref)
      ? ok(
          subject,
          `follows the moving tag ${pin.ref} of the worker action (the App is ${current})`,
        )
      : unknown(
          subject,
          `uses the worker action at ${pin.ref}, with no # vX.Y.Z comment to compare`,
          fix,
        );
  const distance = versionDistance(pin.version, expect.appVersion);
  if (!distance) return ok(subject, `uses the worker action at ${current}, the App's version`);
  return problem(
    subject,
    `uses the worker action at v${pin.version}, ${distance} the App (${current})`,
    fix,
  );
}

async function checkWorkflow(
  gh: DoctorClient,
  branch: string,
  file: string,
  expect: DoctorExpectations,
): Promise<{ findings: Finding[]; facts?: ReturnType<typeof readWorkflow> }> {
  const path = `.github/workflows/${file}`;
  const subject = `workflow ${path}`;
  const text = await gh.file(path, branch);
  if (!text.ok) {
    if (text.status === 404)
      return {
        findings: [
          problem(
            subject,
            `missing on the default branch ${branch}: GitHub dispatches only workflows it finds there`,
            `run \`npx agent-coordinator init\`, then commit .github/workflows/${file} to ${branch}`,
          ),
        ],
      };
    return { findings: [unknown(subject, `could not read it (${why(text)})`)] };
  }
  const facts = readWorkflow(String(text.data));
  if (facts.errors.length > 0)
    return { findings: [problem(subject, `is not valid YAML: ${facts.errors.join('; ')}`)], facts };
  const findings: Finding[] = [
    checkActionPin(String(text.data), expect, `worker action in ${path}`),
  ];
  const pin = findActionPin(String(text.data), expect.actionName);
  const release = pin && (await checkActionRelease(gh, pin, expect.actionName));
  if (release) findings.push(release);
  if (!facts.dispatchable) {
    findings.push(
      problem(
        subject,
        'has no `on: workflow_dispatch` trigger',
        `declare workflow_dispatch with the inputs ${list(WORKER_INPUT_NAMES)}`,
      ),
    );
  } else {
    const { missing, extra } = compareInputs(facts.inputs);
    const issues = [
      ...(missing.length
        ? [
            `does not declare the inputs ${list(missing)} (GitHub refuses a dispatch with undeclared inputs)`,
          ]
        : []),
      ...(extra.length ? [`declares inputs the coordinator never sends: ${list(extra)}`] : []),
    ];
    findings.push(
      issues.length === 0
        ? ok(subject, `declares exactly the ${WORKER_INPUT_NAMES.length} worker inputs`)
        : problem(
            subject,
            issues.join('\n'),
            `declare exactly these workflow_dispatch inputs (type: string): ${list(WORKER_INPUT_NAMES)}; \`npx agent-coordinator init --force\` writes them`,
          ),
    );
  }
  const registered = await gh.workflow(file);
  if (registered.ok && registered.data.state !== 'active')
    findings.push(
      problem(
        `workflow ${file} in Actions`,
        `is ${registered.data.state}`,
        'enable it in the Actions tab',
      ),
    );
  else if (!registered.ok && registered.status !== 404)
    findings.push(
      unknown(`workflow ${file} in Actions`, `could not check its state (${why(registered)})`),
    );
  else if (!registered.ok)
    findings.push(
      problem(
        `workflow ${file} in Actions`,
        'GitHub Actions does not know it (are Actions enabled for the repository?)',
      ),
    );
  return { findings, facts };
}

async function checkActionsNames(
  gh: DoctorClient,
  permissions: Record<string, string | undefined>,
  facts: ReturnType<typeof readWorkflow>,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const kinds = [
    { kind: 'secrets', permission: 'secrets', names: facts.secrets },
    { kind: 'variables', permission: 'actions_variables', names: facts.variables },
  ] as const;
  for (const { kind, permission, names } of kinds) {
    const subject = `workflow ${kind}`;
    if (names.length === 0) {
      findings.push(ok(subject, 'the workflow uses none'));
      continue;
    }
    if (!canRead(permissions, permission)) {
      findings.push(
        unknown(
          subject,
          `the App may not list them (no ${permission} permission); the workflow reads: ${list(names)}`,
          'make sure each exists under Settings → Secrets and variables → Actions (repository or organization)',
        ),
      );
      continue;
    }
    const present = await gh.actionsNames(kind);
    if (!present.ok) {
      findings.push(
        unknown(
          subject,
          `could not list them (${why(present)}); the workflow reads: ${list(names)}`,
        ),
      );
      continue;
    }
    const missing = names.filter((n) => !present.data.includes(n));
    findings.push(
      missing.length === 0
        ? ok(subject, `all set: ${list(names)}`)
        : problem(
            subject,
            `not set: ${list(missing)}`,
            'add them under Settings → Secrets and variables → Actions',
          ),
    );
  }
  return findings;
}

async function checkMergeQueue(
  gh: DoctorClient,
  branch: string,
  config: RepoConfig,
): Promise<Finding> {
  const subject = `merge queue on ${branch}`;
  const queue = await gh.mergeQueue(branch);
  if (!queue.ok) return unknown(subject, `could not check it (${why(queue)})`);
  const mode = config.merge.useMergeQueue;
  if (queue.data && mode === 'never')
    return problem(
      subject,
      'the branch has one but merge.useMergeQueue is never: GitHub refuses direct merges into a queued branch',
      'set merge.useMergeQueue to auto',
    );
  if (!queue.data && mode === 'always')
    return problem(
      subject,
      'merge.useMergeQueue is always but the branch has no merge queue',
      `enable the merge queue in ${branch}'s branch protection or ruleset, or set merge.useMergeQueue to auto`,
    );
  return ok(
    subject,
    queue.data
      ? 'on: approved PRs are enqueued in dependency order'
      : 'off: approved PRs are merged directly in dependency order',
  );
}

/**
 * The agent's branch is pushed with the App's token, so the repository's own `push` and
 * `pull_request` workflows run the agent's code (docs/worker.md, "Your CI runs the agent's
 * change"). Their GITHUB_TOKEN's default access is the repository's "Workflow permissions"
 * setting: read and write (GitHub's default for repositories and organizations created before
 * February 2023) lets that code merge its own PR, push to an unprotected base or post checks.
 */
async function checkWorkflowToken(
  gh: DoctorClient,
  permissions: Record<string, string | undefined>,
): Promise<Finding> {
  const subject = 'workflow GITHUB_TOKEN';
  const fix =
    'in Settings → Actions → General → Workflow permissions, choose "Read repository contents and packages permissions" and leave "Allow GitHub Actions to create and approve pull requests" off; keep `permissions:` minimal in workflows that run on agent branches';
  if (!canRead(permissions, 'administration'))
    return unknown(
      subject,
      "the App may not read the repository's Actions settings (no administration permission); your CI runs the agent's code, and a GITHUB_TOKEN with write access lets it merge its own PR",
      fix,
    );
  const defaults = await gh.workflowTokenDefaults();
  if (!defaults.ok)
    return unknown(subject, `could not read the Actions settings (${why(defaults)})`, fix);
  const issues = [
    ...(defaults.data.default_workflow_permissions === 'write'
      ? [
          "workflows get a read and write GITHUB_TOKEN by default: the agent's code, which your push and pull_request workflows run, could merge its own PR or push to the base branch",
        ]
      : []),
    ...(defaults.data.can_approve_pull_request_reviews
      ? [
          "GitHub Actions may approve pull requests: a workflow running the agent's code could approve its own PR",
        ]
      : []),
  ];
  return issues.length === 0
    ? ok(subject, 'read-only by default, and GitHub Actions may not approve pull requests')
    : problem(subject, issues.join('\n'), fix);
}

/**
 * The order check is the approval gate GitHub enforces (docs/lifecycle.md) only when the base
 * branch requires it from this App: a required check of any source is satisfied by any App or
 * workflow token with `checks: write` that posts a passing check of that name. Branch protection
 * names the source in `required_status_checks.checks[].app_id`, a ruleset in
 * `required_status_checks[].integration_id` ("Get branch protection", "Get rules for a branch",
 * docs.github.com/rest). Pinned in either is enough: GitHub enforces both.
 */
async function checkRequiredCheck(
  gh: DoctorClient,
  branch: string,
  appId: number,
): Promise<Finding> {
  const subject = `required check ${ORDER_CHECK_NAME}`;
  const fix = `add ${ORDER_CHECK_NAME} as a required status check in ${branch}'s branch protection rule or ruleset, with this App (App ID ${appId}) as its source, so that nobody merges an agent PR unapproved or out of order`;
  const info = await gh.branch(branch);
  const required = info.ok ? info.data.protection?.required_status_checks : undefined;
  // `contexts` is the older list of the same names, without their sources.
  const entries: RequiredSource[] = (
    required?.checks?.map((c) => ({ context: c.context, app: c.app_id ?? null })) ??
    (required?.contexts ?? []).map((context) => ({ context, app: null }))
  )
    .filter((c) => c.context === ORDER_CHECK_NAME)
    .map((c) => ({ app: c.app, where: 'branch protection rule' }));
  if (entries.some((c) => c.app === appId))
    return ok(subject, `required on ${branch} from this App (branch protection)`);
  const rules = await gh.branchRules(branch);
  if (rules.ok) {
    const fromRules = rules.data
      .filter((r) => r.type === 'required_status_checks')
      .flatMap((r) => r.parameters?.required_status_checks ?? [])
      .filter((c) => c.context === ORDER_CHECK_NAME)
      .map((c) => ({ app: c.integration_id ?? null, where: 'ruleset' }));
    if (fromRules.some((c) => c.app === appId))
      return ok(subject, `required on ${branch} from this App (ruleset)`);
    entries.unshift(...fromRules);
  }
  const [found] = entries;
  // Unless the rulesets were read, one of them may still pin it.
  if (found && rules.ok) {
    const fixSource = `choose this App (App ID ${appId}) as the source of ${ORDER_CHECK_NAME} in ${branch}'s ${found.where}`;
    return found.app === null
      ? problem(
          subject,
          `required on ${branch} (${found.where}) from any source: a workflow or App with checks: write can post a passing check of that name`,
          fixSource,
        )
      : problem(
          subject,
          `required on ${branch} (${found.where}) from another App (App ID ${found.app}): this App's check does not count, so no agent PR can merge`,
          fixSource,
        );
  }
  if (info.ok && rules.ok) return problem(subject, `not required on ${branch}`, fix);
  const failures = [
    ...(info.ok ? [] : [`branch protection: ${why(info)}`]),
    ...(rules.ok ? [] : [`rulesets: ${why(rules)}`]),
  ];
  return unknown(
    subject,
    `${info.ok ? `${found ? 'required by branch protection, not from this App' : 'not required by branch protection'}; ` : ''}could not check ${list(failures)}`,
    fix,
  );
}

/** Where a required order check comes from; `app` null: any source satisfies it. */
interface RequiredSource {
  app: number | null;
  where: string;
}
