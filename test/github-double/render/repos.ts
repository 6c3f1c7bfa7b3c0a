import type { Core } from '../core.js';
import { isoSeconds } from '../git.js';
import type { Commit, GitIdent, Repo } from '../model.js';
import { userJson } from './accounts.js';

export function repoApiUrl(core: Core, repo: Repo): string {
  return `${core.apiUrl}/repos/${repo.fullName}`;
}

export function repoHtmlUrl(core: Core, repo: Repo): string {
  return `${core.url}/${repo.fullName}`;
}

// Every webhook payload carries one or more repositories: the double's host is parsed once.
let hostOf = { url: '', host: '', hostname: '' };

function host(core: Core): { host: string; hostname: string } {
  if (hostOf.url !== core.url) {
    const parsed = new URL(core.url);
    hostOf = { url: core.url, host: parsed.host, hostname: parsed.hostname };
  }
  return hostOf;
}

// A webhook about a PR carries its repository up to three times, and the double keeps its
// deliveries: while nothing the JSON shows has changed, one frozen object is shared.
const repoJsons = new WeakMap<Repo, { key: string; json: Readonly<Record<string, unknown>> }>();

export function repoJson(core: Core, repo: Repo): Record<string, unknown> {
  let openIssues = 0;
  for (const issue of repo.issues.values()) if (issue.state === 'open') openIssues += 1;
  const key = [
    core.url,
    repo.fullName,
    repo.owner.login,
    repo.private,
    repo.fork,
    repo.defaultBranch,
    repo.pushedAt,
    openIssues,
  ].join('\n');
  const known = repoJsons.get(repo);
  if (known?.key === key) return known.json;
  const json = Object.freeze(buildRepoJson(core, repo, openIssues));
  repoJsons.set(repo, { key, json });
  return json;
}

function buildRepoJson(core: Core, repo: Repo, openIssues: number): Record<string, unknown> {
  const api = repoApiUrl(core, repo);
  const html = repoHtmlUrl(core, repo);
  const { host: gitHost, hostname } = host(core);
  return {
    id: repo.id,
    node_id: repo.nodeId,
    name: repo.name,
    full_name: repo.fullName,
    private: repo.private,
    owner: userJson(core, repo.owner),
    html_url: html,
    description: null,
    fork: repo.fork,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_url: `git://${gitHost}/${repo.fullName}.git`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    ssh_url: `git@${hostname}:${repo.fullName}.git`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
    clone_url: `${html}.git`,
    mirror_url: null,
    hooks_url: `${api}/hooks`,
    svn_url: html,
    homepage: null,
    language: 'TypeScript',
    forks_count: 0,
    forks: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    size: 1,
    default_branch: repo.defaultBranch,
    open_issues_count: openIssues,
    open_issues: openIssues,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: repo.private ? 'private' : 'public',
    pushed_at: repo.pushedAt,
    created_at: repo.createdAt,
    updated_at: repo.pushedAt,
    allow_forking: true,
    web_commit_signoff_required: false,
    license: null,
    allow_squash_merge: true,
    allow_merge_commit: true,
    allow_rebase_merge: true,
    allow_auto_merge: false,
    delete_branch_on_merge: repo.deleteBranchOnMerge,
    allow_update_branch: true,
    network_count: 0,
    subscribers_count: 0,
  };
}

function gitIdentJson(ident: GitIdent): Record<string, unknown> {
  return { name: ident.name, email: ident.email, date: isoSeconds(ident.seconds) };
}

export function gitUser(c: Commit): Record<string, unknown> {
  return gitIdentJson(c.ident.author);
}

const UNSIGNED = {
  verified: false,
  reason: 'unsigned',
  signature: null,
  payload: null,
  verified_at: null,
};

function parentsJson(core: Core, repo: Repo, c: Commit, under: 'commits' | 'git/commits') {
  return c.parents.map((p) => ({
    sha: p,
    url: `${repoApiUrl(core, repo)}/${under}/${p}`,
    html_url: `${repoHtmlUrl(core, repo)}/commit/${p}`,
  }));
}

// The `git-commit` schema: `GET /git/commits/{sha}`.
export function gitCommitJson(core: Core, repo: Repo, c: Commit): Record<string, unknown> {
  const api = repoApiUrl(core, repo);
  return {
    sha: c.sha,
    node_id: `C_${c.sha.slice(0, 20)}`,
    url: `${api}/git/commits/${c.sha}`,
    html_url: `${repoHtmlUrl(core, repo)}/commit/${c.sha}`,
    author: gitUser(c),
    committer: gitIdentJson(c.ident.committer),
    tree: { sha: c.treeSha, url: `${api}/git/trees/${c.treeSha}` },
    message: c.message,
    parents: parentsJson(core, repo, c, 'git/commits'),
    verification: UNSIGNED,
  };
}

// The `commit` schema used by branches, compare and the commits endpoints.
export function commitJson(core: Core, repo: Repo, c: Commit): Record<string, unknown> {
  const api = repoApiUrl(core, repo);
  const who = gitUser(c);
  return {
    sha: c.sha,
    node_id: `C_${c.sha.slice(0, 20)}`,
    url: `${api}/commits/${c.sha}`,
    html_url: `${repoHtmlUrl(core, repo)}/commit/${c.sha}`,
    comments_url: `${api}/commits/${c.sha}/comments`,
    commit: {
      url: `${api}/git/commits/${c.sha}`,
      author: who,
      committer: gitIdentJson(c.ident.committer),
      message: c.message,
      comment_count: 0,
      tree: { sha: c.treeSha, url: `${api}/git/trees/${c.treeSha}` },
      verification: UNSIGNED,
    },
    author: userJson(core, c.author),
    committer: userJson(core, c.author),
    parents: parentsJson(core, repo, c, 'commits'),
  };
}

// `simple-commit` / webhook head_commit shape.
export function simpleCommitJson(c: Commit): Record<string, unknown> {
  return {
    id: c.sha,
    tree_id: c.treeSha,
    message: c.message,
    timestamp: c.at,
    author: { name: c.ident.author.name, email: c.ident.author.email },
    committer: { name: c.ident.committer.name, email: c.ident.committer.email },
  };
}
