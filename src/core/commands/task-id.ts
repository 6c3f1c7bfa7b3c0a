// Same pattern as task ids in the tasks block (SPEC §3).
const TASK_ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;

export function isTaskId(text: string): boolean {
  return TASK_ID.test(text);
}
