/**
 * The three identifiers every protocol string is built from — a task key, an issue number and an
 * attempt number (docs/worker.md, "Dispatch inputs") — spelled once, so a branch name, a
 * run-name, a PR marker, the dispatch inputs and the assignment request accept exactly the same
 * values on the worker's side and on the coordinator's.
 */

/** A task id as a plan writes it (docs/tasks-block.md), or `plan`: also a safe branch segment. */
export const TASK_KEY_SOURCE = '[a-z0-9][a-z0-9_-]{0,39}';
/** A GitHub issue number: no sign, no leading zero. */
export const ISSUE_NUMBER_SOURCE = '[1-9]\\d{0,9}';
/** An attempt of a task, counted from 1. */
export const ATTEMPT_SOURCE = '[1-9]\\d{0,3}';

export const TASK_KEY = new RegExp(`^${TASK_KEY_SOURCE}$`);
export const ISSUE_NUMBER = new RegExp(`^${ISSUE_NUMBER_SOURCE}$`);
export const ATTEMPT_NUMBER = new RegExp(`^${ATTEMPT_SOURCE}$`);

/** The largest numbers the patterns above accept, for checks that read a number first. */
export const MAX_ISSUE_NUMBER = 9_999_999_999;
export const MAX_ATTEMPT = 9_999;
