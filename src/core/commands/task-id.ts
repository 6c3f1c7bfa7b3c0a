import { TASK_KEY } from '../../protocol/identifiers.js';

// Same pattern as task ids in the tasks block (docs/tasks-block.md).
export function isTaskId(text: string): boolean {
  return TASK_KEY.test(text);
}
