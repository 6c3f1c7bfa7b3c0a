import type { Core } from '../core.js';
import type { Account, Issue, IssueComment, Label, Reaction, Repo } from '../model.js';
import { appJson, userJson } from './accounts.js';
import { repoApiUrl, repoHtmlUrl } from './repos.js';

export function authorAssociation(repo: Repo, user: Account): string {
  if (user.login.toLowerCase() === repo.owner.login.toLowerCase()) return 'OWNER';
  const role = repo.roles.get(user.login.toLowerCase());
  if (role === 'admin' || role === 'maintain') return 'MEMBER';
  if (role && role !== 'none') return 'COLLABORATOR';
  return 'NONE';
}

export function reactionRollup(
  url: string,
  reactions: readonly Reaction[],
): Record<string, unknown> {
  const count = (c: string): number => reactions.filter((r) => r.content === c).length;
  return {
    url,
    total_count: reactions.length,
    '+1': count('+1'),
    '-1': count('-1'),
    laugh: count('laugh'),
    hooray: count('hooray'),
    confused: count('confused'),
    heart: count('heart'),
    rocket: count('rocket'),
    eyes: count('eyes'),
  };
}

export function labelJson(core: Core, repo: Repo, l: Label): Record<string, unknown> {
  return {
    id: l.id,
    node_id: l.nodeId,
    url: `${repoApiUrl(core, repo)}/labels/${encodeURIComponent(l.name)}`,
    name: l.name,
    color: l.color,
    default: false,
    description: l.description,
  };
}

export function issueJson(core: Core, repo: Repo, issue: Issue): Record<string, unknown> {
  const api = `${repoApiUrl(core, repo)}/issues/${issue.number}`;
  const html = `${repoHtmlUrl(core, repo)}/${issue.isPull ? 'pull' : 'issues'}/${issue.number}`;
  const comments = [...repo.comments.values()].filter((c) => c.issueNumber === issue.number).length;
  const pull = issue.isPull ? repo.pulls.get(issue.number) : undefined;
  return {
    url: api,
    repository_url: repoApiUrl(core, repo),
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: html,
    id: issue.id,
    node_id: issue.nodeId,
    number: issue.number,
    title: issue.title,
    user: userJson(core, issue.user),
    labels: issue.labels.map((l) => labelJson(core, repo, l)),
    state: issue.state,
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    closed_by: issue.closedBy ? userJson(core, issue.closedBy) : null,
    author_association: authorAssociation(repo, issue.user),
    active_lock_reason: null,
    body: issue.body,
    reactions: reactionRollup(`${api}/reactions`, []),
    timeline_url: `${api}/timeline`,
    performed_via_github_app: null,
    state_reason: issue.stateReason,
    ...(issue.isPull
      ? {
          draft: pull?.draft ?? false,
          pull_request: {
            url: `${repoApiUrl(core, repo)}/pulls/${issue.number}`,
            html_url: html,
            diff_url: `${html}.diff`,
            patch_url: `${html}.patch`,
            merged_at: pull?.mergedAt ?? null,
          },
        }
      : {}),
  };
}

export function commentJson(core: Core, repo: Repo, c: IssueComment): Record<string, unknown> {
  const api = `${repoApiUrl(core, repo)}/issues/comments/${c.id}`;
  const issue = repo.issues.get(c.issueNumber);
  const kind = issue?.isPull ? 'pull' : 'issues';
  return {
    url: api,
    html_url: `${repoHtmlUrl(core, repo)}/${kind}/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${repoApiUrl(core, repo)}/issues/${c.issueNumber}`,
    id: c.id,
    node_id: c.nodeId,
    user: userJson(core, c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    author_association: authorAssociation(repo, c.user),
    body: c.body,
    reactions: reactionRollup(`${api}/reactions`, c.reactions),
    performed_via_github_app: c.app ? appJson(core, c.app) : null,
  };
}

export function reactionJson(core: Core, r: Reaction): Record<string, unknown> {
  return {
    id: r.id,
    node_id: r.nodeId,
    user: userJson(core, r.user),
    content: r.content,
    created_at: r.createdAt,
  };
}
