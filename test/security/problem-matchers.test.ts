import { afterEach, describe, expect, it } from 'vitest';
import { MAINTAINER, REPO, repositoryIdOf } from '../e2e/harness.js';
import { startRealWorkerScenario, type RealWorkerScenario } from '../e2e/real-worker.js';

/**
 * An agent steered into choosing the reason its attempt fails for. actions/setup-node, in the
 * agent job before the worker, registers problem matchers (`tsc`, `eslint-compact`,
 * `eslint-stylish`) for the rest of the job, and the runner matches every line the worker's step
 * prints against them, workflow commands stopped or not: a line shaped like a TypeScript error
 * becomes an error annotation of the job, its message the part after `error TS<n>:`. The
 * coordinator reads a failed run's first error annotation that reads as the worker's (`agent-
 * coordinator: <reason> (<detail>)`) for the attempt's reason. The committed bundle in the real
 * workflow's three jobs, on the GitHub double's runner, which registers setup-node's matchers.
 */
const FORGING_AGENT = String.raw`
const NUL_COLOUR = '\u0000' + '33[m';
const lines = [
  // tsc: the message is what follows 'error TS<n>:'.
  'src/a.ts(1,1): error TS2322: agent-coordinator: timed_out (the agent was stopped at its deadline; its work is kept)',
  // eslint-compact: the message runs to the last ' (…)'.
  'src/a.ts: line 1, col 1, Error - agent-coordinator: timed_out (kept) (x)',
  // The runner strips what it takes for a colour code before matching: NUL, '33[', an 'm'.
  'src/a.ts(1,1): error TS2322: agent-coord' + NUL_COLOUR + 'inator: timed_out (kept)',
];
for (const line of lines) process.stdout.write(line + '\n');
process.stderr.write(lines[0] + '\n');
process.exit(3);
`;

/** Ten lines a matcher takes for errors fill the step's 10 error annotations before the worker's. */
const CROWDING_AGENT = String.raw`
for (let i = 1; i <= 12; i++) process.stdout.write('src/a.ts(' + i + ',1): error TS2322: no\n');
process.exit(3);
`;

describe("an agent that forges its attempt's failure", () => {
  let scenario: RealWorkerScenario | undefined;
  afterEach(async () => {
    await scenario?.close();
    scenario = undefined;
  });

  /** One task run by `agent`, with no retry: the worker's log, and the attempt's stored reason. */
  async function failedAttempt(agent: string) {
    scenario = await startRealWorkerScenario(agent, { config: 'retries:\n  max: 0\n' });
    const { s, runs } = scenario;
    const issue = await s.double.openIssue(REPO, {
      title: 'Forge',
      body: ['```tasks', '- id: a', '  title: A', '```'].join('\n'),
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    expect(runs.map((r) => r.jobs.map((j) => `${j.job}:${j.conclusion}`))).toEqual([
      ['assignment:success', 'agent:failure', 'publish:skipped'],
    ]);
    const run = await s.app.store.runs.latestRun(repositoryIdOf(s.double), issue);
    const [attempt] = await s.app.store.attempts.ofRun(run!.id);
    return { log: runs[0]!.log, reason: attempt!.failureReason };
  }

  it("fails for the worker's reason, though its lines are errors a problem matcher reads", async () => {
    const { log, reason } = await failedAttempt(FORGING_AGENT);
    // The runner did make annotations of them: the matchers are there.
    expect(log).toContain('error TS2322');
    expect(reason).toMatch(/^agent_failed: the agent exited with code 3/);
  }, 180_000);

  it("fails for the worker's reason when its lines leave the worker's error no room", async () => {
    const { log, reason } = await failedAttempt(CROWDING_AGENT);
    // The agent's lines came before the worker's error, which the runner then dropped
    // (test/worker/log-lines.test.ts shows the cap on the same lines).
    expect(log).toContain('src/a.ts(12,1): error TS2322: no');
    expect(reason).toMatch(/^agent_failed: the agent exited with code 3/);
  }, 180_000);
});
