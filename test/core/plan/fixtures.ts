/** The example of docs/tasks-block.md, as an issue body would hold it. */
export const SPEC_EXAMPLE = [
  'Please add login.',
  '',
  '```tasks',
  '- id: task_001',
  '  title: Define the login API signature',
  '  type: code_edit          # free word; selects the model via worker.models',
  '  deps: []',
  '- id: task_002',
  '  title: Implement login',
  '  deps: [task_001]',
  '  prompt: |                # optional; default: title + the issue body',
  '    Implement POST /login using the signature from task_001.',
  '  priority: 4              # 1 (lowest) .. 5 (highest), default 3',
  '  timeoutMinutes: 15       # default worker.timeoutMinutes',
  '- id: task_003',
  '  title: Unit tests for login',
  '  type: test',
  '  deps: [task_001]',
  '- id: task_004',
  '  title: Integration test',
  '  deps: [task_002, task_003]',
  '```',
  '',
].join('\n');

export const LIMITS = { maxTasks: 50 };

/** A YAML list of minimal tasks; `deps[i]` are the deps of `t<i>`. */
export function tasksYaml(deps: string[][]): string {
  return deps
    .map((d, i) => `- id: t${i}\n  title: Task ${i}\n  deps: [${d.join(', ')}]\n`)
    .join('');
}
