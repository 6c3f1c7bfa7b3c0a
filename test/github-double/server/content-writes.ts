// GitHub's "content-creating" requests, which its secondary rate limit caps at 80 a minute.
export const CONTENT_WRITES = new Set([
  'POST /repos/{owner}/{repo}/issues',
  'PATCH /repos/{owner}/{repo}/issues/{issue_number}',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/labels',
  'PUT /repos/{owner}/{repo}/issues/{issue_number}/labels',
  'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels',
  'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
  'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/reactions',
  'POST /repos/{owner}/{repo}/pulls',
  'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
  'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
]);

export const CONTENT_WRITES_PER_MINUTE = 80;
