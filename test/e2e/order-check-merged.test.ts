import { afterEach, describe, expect, it } from 'vitest';
import {
  chaoticDelivery,
  CHAIN_OF_TWO,
  closeScenario,
  DELIVERY_SEEDS,
  REPO,
  startRun,
  startScenario,
  taskOf,
  type Scenario,
} from './harness.js';

type Pull = { number: number; merged?: boolean; head: { ref: string; sha: string } };
type CheckRun = { name: string; status: string; conclusion: string | null; app: { slug: string } };

/**
 * The order check passes only while its task awaits its merge (docs/lifecycle.md step 7), and a
 * merged task's check stays as it passed: with the PR's `closed` delivery late, the coordinator
 * decides the run's merges again while the merged PR is still among the run's open ones (seeds
 * 1 and 3 turned a merged PR's check back to in progress before 'merged' counted as passed).
 */
describe('the order check of a merged PR', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it.each(DELIVERY_SEEDS)(
    'stays as it passed while the run goes on (delivery seed %i)',
    async (seed) => {
      s = await startScenario({
        config: 'merge:\n  requireApproval: false\n',
        delivery: chaoticDelivery(seed),
      });
      s.double.setWorker(() => ({ kind: 'pr' }));
      const issue = await startRun(s, { body: CHAIN_OF_TWO });
      expect((await taskOf(s, issue, 'b'))?.state).toBe('merged');
      for (const pull of s.double.pulls(REPO) as Pull[]) {
        expect(pull.merged).toBe(true);
        const ours = (s.double.checkRuns(REPO, pull.head.sha) as CheckRun[]).filter(
          (c) => c.name === 'agent-coordinator/order' && c.app.slug !== 'github-actions',
        );
        expect(ours.map((c) => `${c.status}: ${c.conclusion}`)).toEqual(['completed: success']);
      }
    },
  );
});
