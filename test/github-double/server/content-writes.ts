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
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers',
]);

export const CONTENT_WRITES_PER_MINUTE = 80;

/**
 * Successful content writes per actor over the last `windowMs`, kept as each actor's timestamps
 * in order: a check drops the ones that left the window instead of scanning the request log.
 */
export class ContentWriteWindow {
  private readonly times = new Map<string | null, number[]>();
  windowMs = 60_000;

  record(actor: string | null, at: number): void {
    let times = this.times.get(actor);
    if (!times) this.times.set(actor, (times = []));
    times.push(at);
  }

  count(actor: string | null, now: number): number {
    const times = this.times.get(actor);
    if (!times) return 0;
    let expired = 0;
    while (expired < times.length && times[expired]! <= now - this.windowMs) expired++;
    if (expired > 0) times.splice(0, expired);
    return times.length;
  }
}
