import { describe, expect, it } from 'vitest';
import { parsePlanMarkdown } from '../../src/core/plan/index.js';
import { planPrompt } from '../../src/worker/prompts.js';

const env = {
  issue: 7,
  owner: 'acme',
  repo: 'widgets',
  taskId: 'plan',
  attempt: 1,
  branch: 'agent/7/plan',
  title: 'Plan',
  prompt: '',
  feedback: '',
  maxTasks: 20,
};

describe('the planner prompt', () => {
  it('asks for files: and its example is a valid plan that declares them', () => {
    const prompt = planPrompt(env, { title: 'Login', body: 'Add login.' });
    expect(prompt).toContain('timeoutMinutes, files. No other keys.');
    expect(prompt).toContain('files lists the paths each task expects to touch');
    const example = prompt.slice(0, prompt.indexOf('Rules:'));
    const parsed = parsePlanMarkdown(example, { maxTasks: 20 });
    expect(parsed.ok && parsed.plan.tasks.map((t) => t.files)).toEqual([
      undefined,
      ['src/login/**'],
    ]);
  });
});
