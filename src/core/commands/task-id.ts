// Same pattern as task ids in the tasks block (docs/tasks-block.md).
const TASK_ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;

export function isTaskId(text: string): boolean {
  return TASK_ID.test(text);
}
