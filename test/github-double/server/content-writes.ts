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
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers',
]);

export const CONTENT_WRITES_PER_MINUTE = 80;

/**
 * Successful content writes per actor over the last `windowMs`, kept as each actor's timestamps
 * in order with the index of the oldest still in the window: a check or a record moves that
 * index past the ones that left, and the array is compacted once most of it is behind the
 * index, so each timestamp costs O(1) amortised, however long the double runs.
 */
export class ContentWriteWindow {
  private readonly actors = new Map<string | null, { times: number[]; oldest: number }>();
  windowMs = 60_000;

  record(actor: string | null, at: number): void {
    let window = this.actors.get(actor);
    if (!window) this.actors.set(actor, (window = { times: [], oldest: 0 }));
    window.times.push(at);
    this.expire(window, at);
  }

  count(actor: string | null, now: number): number {
    const window = this.actors.get(actor);
    if (!window) return 0;
    this.expire(window, now);
    return window.times.length - window.oldest;
  }

  private expire(window: { times: number[]; oldest: number }, now: number): void {
    const { times } = window;
    while (window.oldest < times.length && times[window.oldest]! <= now - this.windowMs)
      window.oldest++;
    if (window.oldest > 64 && window.oldest * 2 > times.length) {
      window.times = times.slice(window.oldest);
      window.oldest = 0;
    }
  }
}
