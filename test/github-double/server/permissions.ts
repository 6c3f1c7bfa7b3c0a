// What each route and GraphQL operation the double models needs from a GitHub App installation
// token, as "Permissions required for GitHub Apps" lists it:
// https://docs.github.com/en/rest/authentication/permissions-required-for-github-apps
// An endpoint listed under several permissions there accepts any one of them (e.g. an issue
// comment is reachable with Issues or with Pull requests), hence `anyOf`.

type Level = 'read' | 'write';

export interface Requirement {
  permission: string;
  level: Level;
}

export type Access =
  // Only the App's own JWT reaches it; no installation permission applies.
  | { kind: 'app-jwt' }
  // Any credential, no permission (e.g. /rate_limit).
  | { kind: 'none' }
  // A repository resource: one of these permissions on that repository.
  | { kind: 'repository'; anyOf: readonly Requirement[] };

const APP_JWT: Access = { kind: 'app-jwt' };

function needs(...alternatives: string[]): Access {
  return {
    kind: 'repository',
    anyOf: alternatives.map((a) => {
      const [permission, level] = a.split(':');
      if (!permission || (level !== 'read' && level !== 'write'))
        throw new Error(`github double: bad permission ${a}`);
      return { permission, level };
    }),
  };
}

export const REST_PERMISSIONS: Readonly<Record<string, Access>> = {
  // Apps
  'GET /app': APP_JWT,
  'GET /app/installations': APP_JWT,
  'GET /app/installations/{installation_id}': APP_JWT,
  'POST /app/installations/{installation_id}/access_tokens': APP_JWT,
  'GET /repos/{owner}/{repo}/installation': APP_JWT,
  'GET /orgs/{org}/installation': APP_JWT,
  'GET /users/{username}/installation': APP_JWT,
  'GET /app/hook/deliveries': APP_JWT,
  'GET /app/hook/deliveries/{delivery_id}': APP_JWT,
  'POST /app/hook/deliveries/{delivery_id}/attempts': APP_JWT,
  'GET /app/hook/config': APP_JWT,
  'GET /rate_limit': { kind: 'none' },
  // The setup flow's exchange of the one-time code: no credential at all.
  'POST /app-manifests/{code}/conversions': { kind: 'none' },

  // Metadata
  'GET /repos/{owner}/{repo}': needs('metadata:read'),
  'GET /repos/{owner}/{repo}/collaborators/{username}/permission': needs('metadata:read'),
  'GET /repos/{owner}/{repo}/rules/branches/{branch}': needs('metadata:read'),

  // Contents
  'GET /repos/{owner}/{repo}/branches': needs('contents:read'),
  'GET /repos/{owner}/{repo}/branches/{branch}': needs('contents:read'),
  'GET /repos/{owner}/{repo}/commits/{ref}': needs('contents:read'),
  'GET /repos/{owner}/{repo}/compare/{basehead}': needs('contents:read'),
  'GET /repos/{owner}/{repo}/contents/{path}': needs('contents:read'),
  'GET /repos/{owner}/{repo}/git/commits/{commit_sha}': needs('contents:read'),
  'GET /repos/{owner}/{repo}/git/matching-refs/{ref}': needs('contents:read'),
  'GET /repos/{owner}/{repo}/git/ref/{ref}': needs('contents:read'),
  'GET /repos/{owner}/{repo}/git/trees/{tree_sha}': needs('contents:read'),
  'POST /repos/{owner}/{repo}/git/refs': needs('contents:write'),
  'PATCH /repos/{owner}/{repo}/git/refs/{ref}': needs('contents:write'),
  'DELETE /repos/{owner}/{repo}/git/refs/{ref}': needs('contents:write'),
  // Merging is filed under Contents only, not Pull requests.
  'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge': needs('contents:write'),
  'POST /repos/{owner}/{repo}/merges': needs('contents:write'),

  // Commit statuses
  'GET /repos/{owner}/{repo}/commits/{ref}/status': needs('statuses:read'),
  'GET /repos/{owner}/{repo}/commits/{ref}/statuses': needs('statuses:read'),
  'POST /repos/{owner}/{repo}/statuses/{sha}': needs('statuses:write'),

  // Checks
  'POST /repos/{owner}/{repo}/check-runs': needs('checks:write'),
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}': needs('checks:read'),
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}': needs('checks:write'),
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations': needs('checks:read'),
  'GET /repos/{owner}/{repo}/commits/{ref}/check-runs': needs('checks:read'),

  // Actions
  'GET /repos/{owner}/{repo}/actions/workflows': needs('actions:read'),
  'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}': needs('actions:read'),
  'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches': needs('actions:write'),
  'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs': needs('actions:read'),
  'GET /repos/{owner}/{repo}/actions/runs': needs('actions:read'),
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}': needs('actions:read'),
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs': needs('actions:read'),
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs':
    needs('actions:read'),
  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}': needs('actions:read'),
  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs': needs('actions:read'),
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs': needs('actions:write'),
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel': needs('actions:write'),
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/force-cancel': needs('actions:write'),

  // Issues (several also under Pull requests: a PR is an issue)
  'GET /repos/{owner}/{repo}/issues': needs('issues:read'),
  'POST /repos/{owner}/{repo}/issues': needs('issues:write'),
  'GET /repos/{owner}/{repo}/issues/{issue_number}': needs('issues:read'),
  'PATCH /repos/{owner}/{repo}/issues/{issue_number}': needs('issues:write', 'pull_requests:write'),
  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': needs(
    'issues:read',
    'pull_requests:read',
  ),
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': needs(
    'issues:write',
    'pull_requests:write',
  ),
  'GET /repos/{owner}/{repo}/issues/comments/{comment_id}': needs(
    'issues:read',
    'pull_requests:read',
  ),
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': needs(
    'issues:write',
    'pull_requests:write',
  ),
  'DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}': needs(
    'issues:write',
    'pull_requests:write',
  ),
  'GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions': needs('issues:read'),
  'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions': needs('issues:write'),
  'GET /repos/{owner}/{repo}/issues/{issue_number}/labels': needs(
    'issues:read',
    'pull_requests:read',
  ),
  'POST /repos/{owner}/{repo}/issues/{issue_number}/labels': needs(
    'issues:write',
    'pull_requests:write',
  ),
  'PUT /repos/{owner}/{repo}/issues/{issue_number}/labels': needs(
    'issues:write',
    'pull_requests:write',
  ),
  'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels': needs(
    'issues:write',
    'pull_requests:write',
  ),
  'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}': needs(
    'issues:write',
    'pull_requests:write',
  ),
  'GET /repos/{owner}/{repo}/labels/{name}': needs('issues:read', 'pull_requests:read'),

  // Pull requests
  'GET /repos/{owner}/{repo}/pulls': needs('pull_requests:read'),
  'POST /repos/{owner}/{repo}/pulls': needs('pull_requests:write'),
  'GET /repos/{owner}/{repo}/pulls/{pull_number}': needs('pull_requests:read', 'contents:read'),
  'PATCH /repos/{owner}/{repo}/pulls/{pull_number}': needs('pull_requests:write'),
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/commits': needs('pull_requests:read'),
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/files': needs('pull_requests:read'),
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/comments': needs('pull_requests:read'),
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments': needs('pull_requests:write'),
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/merge': needs('pull_requests:read'),
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews': needs('pull_requests:read'),
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}': needs('pull_requests:read'),
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews': needs('pull_requests:write'),
  'PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/dismissals':
    needs('pull_requests:write'),
  'PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch': needs('pull_requests:write'),
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies':
    needs('pull_requests:write'),
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers': needs('pull_requests:read'),
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers':
    needs('pull_requests:write'),
  'DELETE /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers':
    needs('pull_requests:write'),
  'GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls': needs('pull_requests:read'),
};

// GitHub publishes no per-field permission list for GraphQL; it applies the permission of the
// resource a field reads or changes, the same one REST needs for it ("Merge queues" is the App
// permission for a repository's merge queue). Reading objects is checked by the type of object
// a field returns; mutations by name.
export const GRAPHQL_OBJECT_PERMISSIONS: Readonly<Record<string, Access>> = {
  Repository: needs('metadata:read'),
  PullRequest: needs('pull_requests:read', 'contents:read'),
  PullRequestReviewThread: needs('pull_requests:read'),
  PullRequestReviewComment: needs('pull_requests:read'),
  MergeQueue: needs('merge_queues:read'),
  MergeQueueEntry: needs('merge_queues:read'),
};

export const GRAPHQL_MUTATION_PERMISSIONS: Readonly<Record<string, Access>> = {
  enqueuePullRequest: needs('merge_queues:write'),
  dequeuePullRequest: needs('merge_queues:write'),
  resolveReviewThread: needs('pull_requests:write'),
  unresolveReviewThread: needs('pull_requests:write'),
};

export function isReadOnly(access: Access): boolean {
  return access.kind !== 'repository' || access.anyOf.every((r) => r.level === 'read');
}
