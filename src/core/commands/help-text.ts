import type { CommandContext } from './types.js';

// docs/commands.md, one column per context. Usage cells are code spans without pipes, so they are
// safe inside a table cell.
const ROWS: Record<CommandContext, readonly (readonly [usage: string, effect: string])[]> = {
  pull_request: [
    ['`/approve`', 'approve this task for merge'],
    [
      '`/veto [reason]`',
      'veto this task: it is not merged, its order check fails with the reason, dependents are blocked',
    ],
    [
      '`/retry [feedback]`',
      're-run this task (same branch and PR) in `mode=fix` with the feedback',
    ],
    ['`/hold`, `/unhold`', 'stop / resume merging this task'],
    ['`/cancel`', 'cancel this task'],
    ['`/help`', 'show this list'],
  ],
  issue: [
    ['`/approve`', 'approve the plan (when it is awaiting approval)'],
    ['`/approve <task_id>`', 'approve that task for merge'],
    [
      '`/veto <task_id> [reason]`',
      'veto that task: it is not merged, its order check fails with the reason, dependents are blocked',
    ],
    [
      '`/retry <task_id> [feedback]`',
      're-run that task with the feedback (`mode=fix` on its PR, `mode=work` when it has no PR)',
    ],
    ['`/hold`, `/unhold`', 'stop / resume dispatch and merges for the run'],
    ['`/cancel`', 'cancel the run'],
    ['`/plan` + tasks block', 'replace the plan (before the first merge)'],
    ['`/status`', 'refresh the status comment now'],
    ['`/help`', 'show this list'],
  ],
};

const HEADING: Record<CommandContext, string> = {
  pull_request: 'Commands on an agent pull request',
  issue: 'Commands on the issue',
};

const ELSEWHERE: Record<CommandContext, string> = {
  pull_request: '`/plan` and `/status` work on the issue only.',
  issue:
    'On an agent pull request, `/approve`, `/veto [reason]`, `/retry [feedback]`, `/hold`, `/unhold` and `/cancel` act on that one task.',
};

/** The /help reply: a markdown table of the commands that work where it was asked. */
export function helpText(context: CommandContext): string {
  return [
    `**${HEADING[context]}**`,
    '',
    '| command | what it does |',
    '|---|---|',
    ...ROWS[context].map(([usage, effect]) => `| ${usage} | ${effect} |`),
    '',
    ELSEWHERE[context],
    '',
    'Put a command at the start of a line, outside code blocks, quotes and HTML comments. Only people with write access can use them.',
  ].join('\n');
}
