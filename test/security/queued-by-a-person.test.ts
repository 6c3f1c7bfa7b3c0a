import { Octokit } from '@octokit/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_APP_ID } from '../helpers/app.js';
import {
  chaoticDelivery,
  closeScenario,
  DELIVERY_SEEDS,
  MAINTAINER,
  REPO,
  startRun,
  startScenario,
  taskOf,
  type Scenario,
} from '../e2e/harness.js';
import { orderCheckOf, tasksBlock, type Pull } from './security-helpers.js';

const ORDER = 'agent-coordinator/order';
const CAROL = 'carol';

/**
 * Anyone with write access, or a workflow token in CI that runs the agent's code, may add an
 * agent PR to GitHub's merge queue once its order check passes, before the coordinator does (it
 * waits for the PR's other checks). The coordinator then does not know the PR is queued. A veto
 * after that must still keep the PR from landing with a merge group, though the group's ref names
 * a later PR (a group of several PRs is named by its last).
 */
describe.each(DELIVERY_SEEDS)(
  'an agent PR a person put in the merge queue (delivery seed %i)',
  (seed) => {
    let s: Scenario;
    afterEach(() => closeScenario(s));

    const pullOf = (task: string) =>
      (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === `agent/1/${task}`)!;

    /** Carol's "Merge when ready": GraphQL `enqueuePullRequest` with her own token. */
    const enqueueAs = async (login: string, pr: number) => {
      const octokit = new Octokit({
        baseUrl: s.double.apiUrl,
        auth: s.double.createUserToken(login),
      });
      const { repository } = await octokit.graphql<{ repository: { pullRequest: { id: string } } }>(
        'query($owner: String!, $name: String!, $n: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $n) { id } } }',
        { owner: REPO.split('/')[0], name: REPO.split('/')[1], n: pr },
      );
      await octokit.graphql(
        'mutation($id: ID!) { enqueuePullRequest(input: { pullRequestId: $id }) { clientMutationId } }',
        { id: repository.pullRequest.id },
      );
    };

    it('does not land it vetoed with a merge group named by a later PR', async () => {
      s = await startScenario({ delivery: chaoticDelivery(seed) });
      await s.double.setRequiredChecks(REPO, 'main', [ORDER], { apps: { [ORDER]: TEST_APP_ID } });
      await s.double.enableMergeQueue(REPO, 'main');
      await s.double.setPermission(REPO, CAROL, 'write');
      s.double.setWorker(() => ({ kind: 'pr' }));
      const issue = await startRun(s, {
        body: tasksBlock([
          ['a', 'A'],
          ['b', 'B'],
        ]),
      });
      const a = pullOf('a');
      // A check no branch rule requires is still running: the coordinator waits for it to enqueue.
      await s.double.setCheck(REPO, a.head.sha, 'lint', 'in_progress');
      await s.double.comment(REPO, a.number, '/approve', MAINTAINER);
      await s.settle();
      expect(orderCheckOf(s, a.head.sha)).toMatchObject({ conclusion: 'success' });
      expect(s.double.mergeQueue(REPO, 'main')).toEqual([]);

      await enqueueAs(CAROL, a.number);
      await s.settle();
      expect(s.double.mergeQueue(REPO, 'main')).toEqual([a.number]);

      await s.double.comment(REPO, a.number, '/veto not this', MAINTAINER);
      await s.settle();
      expect(await taskOf(s, issue, 'a')).toMatchObject({ state: 'vetoed' });
      expect(orderCheckOf(s, a.head.sha)).toMatchObject({ conclusion: 'failure' });

      // The other task's PR, approved, queued after it by the coordinator: the queue builds one
      // group of both, named by the later.
      const b = pullOf('b');
      await s.double.comment(REPO, b.number, '/approve', MAINTAINER);
      await s.settle();
      expect(s.double.mergeQueue(REPO, 'main')).toEqual([a.number, b.number]);
      const result = await s.double.processMergeQueue(REPO, 'main', { batch: 2 });
      await s.settle();

      const requested = s.double.deliveries({ event: 'merge_group', action: 'checks_requested' });
      const group = (requested.at(-1)!.payload['merge_group'] as { head_sha: string }).head_sha;
      expect(orderCheckOf(s, group)).toMatchObject({
        conclusion: 'failure',
        output: { summary: expect.stringContaining(`#${a.number} (a) is vetoed`) },
      });
      expect(result.merged).toEqual([]);
      expect(pullOf('a').merged).toBe(false);
    });
  },
);
