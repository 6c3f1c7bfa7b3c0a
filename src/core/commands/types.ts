/** Where a comment was posted: the tracking issue, or one task's agent pull request. */
export type CommandContext = 'issue' | 'pull_request';

export type Command =
  // issue: no arg approves the plan, an arg approves that task; PR: `/approve [sha]`, the head
  // (or only the head whose SHA starts with those 7 to 40 hex digits).
  | { name: 'approve'; taskId?: string; sha?: string }
  // issue: `/veto <task_id> [reason]`; PR: `/veto [reason]`.
  | { name: 'veto'; taskId?: string; reason?: string }
  // issue: `/retry <task_id> [feedback]`; PR: `/retry [feedback]`.
  | { name: 'retry'; taskId?: string; feedback?: string }
  | { name: 'hold' }
  | { name: 'unhold' }
  | { name: 'cancel' }
  | { name: 'status' }
  | { name: 'help' }
  // Issue only. Everything after `/plan` to the end of the comment, fences included.
  | { name: 'plan'; body: string };

export type CommandName = Command['name'];

export type CommandParseError =
  /** A near miss of a known command; `name` is the word as typed. */
  | { kind: 'unknown_command'; name: string; suggestion: string }
  | { kind: 'wrong_context'; name: string; context: CommandContext }
  | { kind: 'missing_argument'; name: string; argument: string }
  | { kind: 'unexpected_argument'; name: string; text: string }
  | { kind: 'invalid_task_id'; name: string; text: string };

/** `line` is 1-based, the line of the comment that holds the command. */
export type ParsedCommand =
  | { ok: true; command: Command; line: number }
  | { ok: false; error: CommandParseError; line: number };
