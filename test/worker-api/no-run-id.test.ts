import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../e2e/harness.js';
import { REFUSALS } from '../../src/worker-api/refusals.js';
import {
  ask,
  bodyOf,
  claimsOf,
  runsOn,
  startIssue,
  startWorkerWorld,
  type WorkerWorld,
} from './fixture.js';

/**
 * GitHub Enterprise Server up to 3.19 answers a dispatch 204, without the run: the assignment
 * finds the run the dispatch started (event, branch, run-name, creation time) and records it.
 * workflow_run events are left out, so nothing else records it first.
 */
describe('the assignment of a run the dispatch answer did not name', () => {
  let w: WorkerWorld;
  let issue: number;
  beforeAll(async () => {
    w = await startWorkerWorld({
      subscribedEvents: ['issues', 'issue_comment', 'pull_request', 'pull_request_review'],
    });
    w.s.double.dispatchReturnsNoContent = true;
    issue = await startIssue(w.s, ['a', 'b']);
  });
  afterAll(async () => w?.close());

  const attemptOf = async (task: string) =>
    (await w.s.app.store.attempts.open()).find((o) => o.task.taskKey === task)!.attempt;

  it('matches the run by its run-name and records it', async () => {
    const run = runsOn(w.s, issue, 'a')[0]!;
    expect((await attemptOf('a')).workflowRunId).toBeNull();
    const answer = await ask(w.s, `Bearer ${await w.issuer.sign(claimsOf(w.s, run))}`, bodyOf(run));
    expect(answer.status).toBe(200);
    expect((await attemptOf('a')).workflowRunId).toBe(run.id);
    // The listing GitHub was asked: this branch's dispatches, created since the intent.
    const listing = w.s.double.requests.find(
      (r) =>
        r.route === 'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs' &&
        r.query.includes(`branch=agent%2F${issue}%2Fa`),
    )!;
    const query = new URLSearchParams(listing.query);
    expect(query.get('event')).toBe('workflow_dispatch');
    expect(query.get('created')).toMatch(/^>=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    w.s.double.assertNoViolations();
  });

  it('refuses a token whose run is not the one that matched', async () => {
    const [a] = runsOn(w.s, issue, 'a');
    const b = runsOn(w.s, issue, 'b')[0]!;
    // b's branch and body, but a's run id: a run of this workflow, not b's dispatch.
    const token = await w.issuer.sign({ ...claimsOf(w.s, b), run_id: String(a!.id) });
    const answer = await ask(w.s, `Bearer ${token}`, bodyOf(b));
    expect(answer.json).toEqual({ error: REFUSALS.run_id.error });
    expect(answer.status).toBe(403);
    // The match found and recorded b's own run, which is then accepted.
    expect((await attemptOf('b')).workflowRunId).toBe(b.id);
    const own = await ask(w.s, `Bearer ${await w.issuer.sign(claimsOf(w.s, b))}`, bodyOf(b));
    expect(own.status).toBe(200);
    expect(w.s.double.runs(REPO)).toHaveLength(2);
  });
});
