import { GraphqlResponseError } from '@octokit/graphql';
import { pino } from 'pino';
import { Probot, ProbotOctokit } from 'probot';

export type Answer<T> =
  { ok: true; status: number; data: T } | { ok: false; status: number; message: string };

/** "HTTP 404: Not Found", or "no answer: connect ECONNREFUSED …". */
export function why(answer: { status: number; message: string }): string {
  const message = answer.message.split('\n')[0]?.replace(/ - https:\/\/docs\.github\.com\S*/, '');
  return answer.status ? `HTTP ${answer.status}: ${message}` : `no answer: ${message}`;
}

async function ask<T>(call: () => Promise<{ status: number; data: unknown }>): Promise<Answer<T>> {
  try {
    const response = await call();
    return { ok: true, status: response.status, data: response.data as T };
  } catch (error) {
    // GitHub refuses a GraphQL query with HTTP 200 and its reasons in `errors`.
    if (error instanceof GraphqlResponseError && error.errors?.length)
      return { ok: false, status: 200, message: error.errors.map((e) => e.message).join('; ') };
    const status = (error as { status?: unknown }).status;
    return {
      ok: false,
      status: typeof status === 'number' ? status : 0,
      message: error instanceof Error ? error.message : String(error),
    };
  }
}

// One attempt per request: the doctor reports what GitHub answers, it does not wait it out.
const DoctorOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { ...(options.throttle as object), enabled: false },
})) as typeof ProbotOctokit;

type Octokit = InstanceType<typeof ProbotOctokit>;

export interface InstallationInfo {
  id: number;
  account: { login: string } | null;
  permissions: Record<string, string | undefined>;
  events: string[];
  suspended_at: string | null;
}

export interface BranchInfo {
  protected?: boolean;
  protection?: {
    required_status_checks?: {
      contexts?: string[];
      /** `app_id`: the App whose checks alone satisfy the requirement; null for any. */
      checks?: Array<{ context: string; app_id?: number | null }>;
    };
  };
}

export interface RuleInfo {
  type: string;
  /** `integration_id`: the App whose checks alone satisfy the requirement; absent for any. */
  parameters?: {
    required_status_checks?: Array<{ context: string; integration_id?: number | null }>;
  };
}

/** The few GitHub calls the doctor makes, each answering instead of throwing. */
export class DoctorClient {
  private installationOctokit: Octokit | undefined;

  private constructor(
    private readonly probot: Probot,
    private readonly appOctokit: Octokit,
    readonly owner: string,
    readonly repo: string,
  ) {}

  static async create(options: {
    appId: number;
    privateKey: string;
    baseUrl?: string;
    owner: string;
    repo: string;
  }): Promise<DoctorClient> {
    const probot = new Probot({
      appId: options.appId,
      privateKey: options.privateKey,
      baseUrl: options.baseUrl,
      Octokit: DoctorOctokit,
      log: pino({ level: 'silent' }),
    });
    return new DoctorClient(probot, await probot.auth(), options.owner, options.repo);
  }

  app() {
    return ask<{ id: number; slug?: string; name: string; html_url: string }>(() =>
      this.appOctokit.request('GET /app'),
    );
  }

  installation() {
    return ask<InstallationInfo>(() =>
      this.appOctokit.request('GET /repos/{owner}/{repo}/installation', this.where()),
    );
  }

  async useInstallation(id: number): Promise<void> {
    this.installationOctokit = await this.probot.auth(id);
  }

  repository() {
    return ask<{ default_branch: string }>(() =>
      this.octokit().request('GET /repos/{owner}/{repo}', this.where()),
    );
  }

  /** A file's text on `ref`. */
  file(path: string, ref: string) {
    return ask<string>(() =>
      this.octokit().request('GET /repos/{owner}/{repo}/contents/{path}', {
        ...this.where(),
        path,
        ref,
        mediaType: { format: 'raw' },
      }),
    );
  }

  label(name: string) {
    return ask<{ name: string }>(() =>
      this.octokit().request('GET /repos/{owner}/{repo}/labels/{name}', {
        ...this.where(),
        name,
      }),
    );
  }

  workflow(file: string) {
    return ask<{ state: string; path: string }>(() =>
      this.octokit().request('GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}', {
        ...this.where(),
        workflow_id: file,
      }),
    );
  }

  /** Names of the secrets or variables a workflow of this repository can see. */
  async actionsNames(kind: 'secrets' | 'variables'): Promise<Answer<string[]>> {
    const routes =
      kind === 'secrets'
        ? [
            'GET /repos/{owner}/{repo}/actions/secrets',
            'GET /repos/{owner}/{repo}/actions/organization-secrets',
          ]
        : [
            'GET /repos/{owner}/{repo}/actions/variables',
            'GET /repos/{owner}/{repo}/actions/organization-variables',
          ];
    const names: string[] = [];
    for (const route of routes) {
      const answer = await ask<Array<{ name: string }>>(async () => ({
        status: 200,
        data: await this.octokit().paginate(route, { ...this.where(), per_page: 100 }),
      }));
      if (!answer.ok) return answer;
      names.push(...answer.data.map((item) => item.name));
    }
    return { ok: true, status: 200, data: names };
  }

  async mergeQueue(branch: string): Promise<Answer<boolean>> {
    return ask<boolean>(async () => {
      const result = await this.octokit().graphql<{
        repository: { mergeQueue: { id: string } | null } | null;
      }>(
        `query($owner: String!, $name: String!, $branch: String!) {
          repository(owner: $owner, name: $name) { mergeQueue(branch: $branch) { id } }
        }`,
        { owner: this.owner, name: this.repo, branch },
      );
      return { status: 200, data: Boolean(result.repository?.mergeQueue) };
    });
  }

  branch(name: string) {
    return ask<BranchInfo>(() =>
      this.octokit().request('GET /repos/{owner}/{repo}/branches/{branch}', {
        ...this.where(),
        branch: name,
      }),
    );
  }

  branchRules(name: string) {
    return ask<RuleInfo[]>(() =>
      this.octokit().request('GET /repos/{owner}/{repo}/rules/branches/{branch}', {
        ...this.where(),
        branch: name,
      }),
    );
  }

  /**
   * What a workflow's GITHUB_TOKEN may do by default, and whether GitHub Actions may approve
   * pull requests: `GET …/actions/permissions/workflow`, which needs the Administration
   * repository permission (read) ("Get default workflow permissions for a repository",
   * docs.github.com/rest/actions/permissions).
   */
  workflowTokenDefaults() {
    return ask<{
      default_workflow_permissions: 'read' | 'write';
      can_approve_pull_request_reviews: boolean;
    }>(() =>
      this.octokit().request(
        'GET /repos/{owner}/{repo}/actions/permissions/workflow',
        this.where(),
      ),
    );
  }

  /**
   * The commit a tag of any repository the installation can read (the worker action's is
   * public) points at: `GET …/git/ref/tags/{tag}`, then `GET …/git/tags/{sha}` through an
   * annotated tag. 404 when the tag does not exist.
   */
  async tagCommit(owner: string, repo: string, tag: string): Promise<Answer<string>> {
    type GitObject = { object: { type: string; sha: string } };
    let answer = await ask<GitObject>(() =>
      this.octokit().request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
        owner,
        repo,
        ref: `tags/${tag}`,
      }),
    );
    // A tag may point at another tag; a few hops is all anyone makes.
    for (let hops = 0; hops < 5 && answer.ok; hops++) {
      const { type, sha } = answer.data.object;
      if (type === 'commit') return { ok: true, status: answer.status, data: sha };
      if (type !== 'tag')
        return { ok: false, status: answer.status, message: `the tag points at a ${type}` };
      answer = await ask<GitObject>(() =>
        this.octokit().request('GET /repos/{owner}/{repo}/git/tags/{tag_sha}', {
          owner,
          repo,
          tag_sha: sha,
        }),
      );
    }
    return answer.ok
      ? { ok: false, status: answer.status, message: 'too many nested tags' }
      : answer;
  }

  private where() {
    return { owner: this.owner, repo: this.repo };
  }

  private octokit(): Octokit {
    if (!this.installationOctokit) throw new Error('doctor: no installation token yet');
    return this.installationOctokit;
  }
}
