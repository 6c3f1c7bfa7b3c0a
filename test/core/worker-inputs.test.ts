import { describe, expect, it } from 'vitest';
import {
  buildWorkerInputs,
  MAX_DISPATCH_PAYLOAD,
  type WorkerInputSource,
} from '../../src/core/worker-inputs.js';

const source = (overrides: Partial<WorkerInputSource> = {}): WorkerInputSource => ({
  taskKey: 'task_002',
  issueNumber: 7,
  attempt: 2,
  mode: 'work',
  title: 'Implement login',
  issueTitle: 'Login',
  issueBody: 'We need a login.',
  base: 'main',
  timeoutMinutes: 15,
  model: 'claude-sonnet-4-5',
  maxTurns: 50,
  ...overrides,
});

describe('worker inputs (SPEC §6)', () => {
  it('sends exactly the declared inputs, all strings', () => {
    const inputs = buildWorkerInputs(
      source({ prompt: 'Implement POST /login', feedback: 'use bcrypt' }),
    );
    expect(inputs).toEqual({
      task_id: 'task_002',
      issue: '7',
      attempt: '2',
      mode: 'work',
      title: 'Implement login',
      prompt: 'Implement POST /login',
      feedback: 'use bcrypt',
      base: 'main',
      timeout_minutes: '15',
      model: 'claude-sonnet-4-5',
      max_turns: '50',
    });
    for (const value of Object.values(inputs)) expect(typeof value).toBe('string');
  });

  it('defaults the prompt to the title and the issue body', () => {
    const { prompt, feedback } = buildWorkerInputs(source());
    expect(prompt).toContain('Implement login');
    expect(prompt).toContain('We need a login.');
    expect(feedback).toBe('');
  });

  it.each([
    ['a long ASCII prompt', 'x'.repeat(200_000)],
    ['a prompt that JSON escaping inflates', '"\\\n\u0001'.repeat(40_000)],
    ['a prompt of astral characters', '😀'.repeat(60_000)],
  ])('cuts %s to fit the 65,535-character dispatch payload', (_name, prompt) => {
    const inputs = buildWorkerInputs(source({ prompt, feedback: 'f'.repeat(10_000) }));
    expect(
      JSON.stringify({ ref: 'agent/7/task_002', inputs, return_run_details: true }).length,
    ).toBeLessThanOrEqual(MAX_DISPATCH_PAYLOAD);
    expect(inputs.prompt).toContain('[prompt truncated by agent-coordinator');
    expect(inputs.feedback).toBe('f'.repeat(10_000));
  });

  it('keeps untrusted text verbatim (the workflow passes it through env, never into a script)', () => {
    const hostile =
      '${{ secrets.GITHUB_TOKEN }} `rm -rf /` $(curl x) <!-- agent-coordinator:status -->';
    const inputs = buildWorkerInputs(
      source({ title: hostile, prompt: hostile, feedback: hostile }),
    );
    expect(inputs.title).toBe(hostile);
    expect(inputs.prompt).toBe(hostile);
    expect(inputs.feedback).toBe(hostile);
  });
});
