import { existsSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API, REPO, strictGitHub } from './helpers/github-mock.js';
import { createHarness, type Harness } from './helpers/harness.js';
import { errorLine } from './error-line.js';

strictGitHub();

let h: Harness;
beforeEach(() => {
  h = createHarness('agent/7/plan');
});
afterEach(() => h.fx.cleanup());

const VALID_ANSWER = [
  'Here is the plan.',
  '',
  '```tasks',
  '- id: task_001',
  '  title: Define the login API signature',
  '  deps: []',
  '- id: task_002',
  '  title: Implement login',
  '  deps: [task_001]',
  '```',
  '',
  'Let me know if anything is unclear.',
].join('\n');

const CYCLIC_ANSWER = [
  '```tasks',
  '- id: task_a',
  '  title: A',
  '  deps: [task_b]',
  '- id: task_b',
  '  title: B',
  '  deps: [task_a]',
  '```',
].join('\n');

// The planner never reads the issue from GitHub: it plans from the issue as it was labelled,
// which the assignment carries (a live read would let its author edit the plan's input).
function mockIssueAndComment(): { body?: string } {
  const seen: { body?: string } = {};
  nock(API)
    .post(`${REPO}/issues/7/comments`, (body: { body: string }) => {
      seen.body = body.body;
      return true;
    })
    .reply(201, { id: 555, html_url: 'https://github.com/acme/widgets/issues/7#issuecomment-555' });
  return seen;
}

const planEnv = (answer: string): NodeJS.ProcessEnv => ({
  mode: 'plan',
  task_id: 'plan',
  title: 'Add login',
  prompt: 'Users need to log in with a password.',
  FAKE_AGENT: 'plan',
  FAKE_PLAN: answer,
});

describe('plan mode', () => {
  it('asks for a tasks block with the issue, and posts one comment with the block and the run marker', async () => {
    const comment = mockIssueAndComment();
    const result = await h.run(planEnv(VALID_ANSWER));

    expect(result.outcome).toMatchObject({ ok: true, commentId: 555 });
    expect(result.exitCode).toBe(0);
    // The planner owned the checkout's .git/: nothing of it is left for a later step to run.
    expect(existsSync(join(h.fx.workspace, '.git'))).toBe(false);
    const prompt = h.record()!.stdin;
    expect(prompt).toContain('Add login');
    expect(prompt).toContain('Users need to log in with a password.');
    expect(prompt).toContain('`tasks`');
    expect(prompt).toContain('At most 50 tasks');

    const body = comment.body!;
    expect(body).toContain('```tasks\n- id: task_001\n');
    expect(body).toContain('  deps: [task_001]\n```');
    expect(body).toContain('<!-- agent-coordinator:plan run_id=987654321 -->');
    expect(body).not.toContain('Let me know');
  });

  it('posts the validation errors with the marker and fails with plan_invalid', async () => {
    const comment = mockIssueAndComment();
    const result = await h.run(planEnv(CYCLIC_ANSWER));

    expect(result.outcome).toMatchObject({ ok: false, reason: 'plan_invalid' });
    expect(result.exitCode).toBe(1);
    expect(result.log).toMatch(errorLine('plan_invalid', 'm'));
    expect(comment.body).toMatch(/task_a -> task_b -> task_a|task_b -> task_a -> task_b/);
    expect(comment.body).toContain('<!-- agent-coordinator:plan run_id=987654321 -->');
  });

  // The planner is steered by the issue's text: the branch the run works against is a person's
  // to name (src/core/plan/parse.ts, plannerBase), and the coordinator would refuse it too.
  it('refuses a plan that names a base, in a comment that says why', async () => {
    const comment = mockIssueAndComment();
    const answer = ['```tasks', 'base: release', 'tasks:', '  - id: a', '    title: A', '```'];
    const result = await h.run(planEnv(answer.join('\n')));
    expect(result.outcome).toMatchObject({ ok: false, reason: 'plan_invalid' });
    expect(comment.body).toContain("line 1, column 1 `base`: a planner's plan names no `base`");
    expect(comment.body).toContain('<!-- agent-coordinator:plan run_id=987654321 -->');
  });

  it('reports a missing tasks block, and honours max_tasks', async () => {
    const comment = mockIssueAndComment();
    const result = await h.run({ ...planEnv('I could not make a plan.'), max_tasks: '1' });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'plan_invalid' });
    expect(h.record()!.stdin).toContain('At most 1 tasks');
    expect(comment.body).toContain('no `tasks` code block');
    expect(comment.body).toContain('I could not make a plan.');
    expect(comment.body).toContain('<!-- agent-coordinator:plan run_id=987654321 -->');
  });

  it('rejects a plan over the task limit', async () => {
    const comment = mockIssueAndComment();
    const result = await h.run({ ...planEnv(VALID_ANSWER), max_tasks: '1' });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'plan_invalid' });
    expect(comment.body).toContain('```tasks');
    expect(comment.body).toContain('<!-- agent-coordinator:plan run_id=987654321 -->');
  });

  // GitHub refuses a comment body over 65,536 characters: the planner's answer must still reach
  // the issue, as a plan_invalid comment that fits, not as an api_failed run.
  const longPlan = (tasks: number, prompt: string) =>
    [
      '```tasks',
      ...Array.from({ length: tasks }, (_, i) => [
        `- id: task_${String(i).padStart(3, '0')}`,
        `  title: Step ${i}`,
        `  prompt: ${prompt}`,
      ]).flat(),
      '```',
    ].join('\n');

  it('refuses a valid plan too long for one comment, and says so in a comment that fits', async () => {
    const comment = mockIssueAndComment();
    const result = await h.run({ ...planEnv(longPlan(10, 'x'.repeat(7_000))), max_tasks: '50' });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'plan_invalid' });
    expect(comment.body!.length).toBeLessThanOrEqual(65_536);
    expect(comment.body).toMatch(
      /the plan is \d+ characters long, and a GitHub comment holds at most 65536/,
    );
    expect(comment.body).toContain('<!-- agent-coordinator:plan run_id=987654321 -->');
  });

  it('shows a long invalid plan cut, in a comment that fits', async () => {
    const comment = mockIssueAndComment();
    const invalid = longPlan(120, 'y'.repeat(200)).replaceAll('  title:', '  titel:');
    const result = await h.run({ ...planEnv(invalid), max_tasks: '500' });
    expect(result.outcome).toMatchObject({ ok: false, reason: 'plan_invalid' });
    expect(comment.body!.length).toBeLessThanOrEqual(65_536);
    expect(comment.body).toContain('```text\n- id: task_000');
  });
});
