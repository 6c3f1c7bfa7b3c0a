import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTaskBranch, taskBranch } from '../../src/protocol/branch.js';

describe('task branches', () => {
  it.each([
    [1, 'a'],
    [7, 'task_001'],
    [12, 'plan'],
    [9_999_999_999, 'x'.repeat(40)],
    [3, '0-a_b'],
  ])('round-trips issue %i, task %s', (issueNumber, taskKey) => {
    expect(parseTaskBranch(taskBranch(issueNumber, taskKey))).toEqual({ issueNumber, taskKey });
  });

  it.each([
    ['agent-7/task_001'],
    ['agent/7/task_001/x'],
    ['agent/07/task_001'],
    ['agent/0/task_001'],
    ['agent/-7/task_001'],
    ['agent/10000000000/task_001'],
    ['agent/7/Task'],
    ['agent/7/_task'],
    ['agent/7/-task'],
    [`agent/7/${'x'.repeat(41)}`],
    ['agent/7/'],
    ['agent//task_001'],
    ['refs/heads/agent/7/task_001'],
    ['xagent/7/task_001'],
    ['Agent/7/task_001'],
    ['agent/7/task_001 '],
    ['agent/7/task_001\n'],
    [''],
  ])('reads no task branch from %j', (ref) => {
    expect(parseTaskBranch(ref)).toBeNull();
  });

  it.each(['docs/worker.md', 'docs/lifecycle.md', 'templates/agent-worker.yml'])(
    'is the branch %s describes',
    (file) => {
      const text = readFileSync(file, 'utf8');
      const described = /agent\/<issue>\/<(task_id|task)>/.exec(text)?.[0];
      expect(described, file).toBeDefined();
      const example = described!.replace('<issue>', '7').replace(/<task(_id)?>/, 'task_001');
      expect(example).toBe(taskBranch(7, 'task_001'));
    },
  );
});
