import { suggestCommand, toCommandName } from './command-names.js';
import { commandLineMask, firstNonSpace, splitLines } from './markdown-lines.js';
import { isTaskId } from './task-id.js';
import type {
  Command,
  CommandContext,
  CommandName,
  CommandParseError,
  ParsedCommand,
} from './types.js';

type Outcome = { ok: true; command: Command } | { ok: false; error: CommandParseError };

/** A line that starts with `/word`, where the word is a command or a near miss of one. */
type Head =
  | { index: number; name: CommandName; tail: string }
  | { index: number; name: undefined; typed: string; suggestion: CommandName };

const SLASH = 0x2f;
const WHITESPACE = /\s/;
const WORD_AND_REST = /^(\S+)([\s\S]*)$/;
const COMMIT_SHA = /^[0-9a-f]{7,40}$/i;

/**
 * Reads the commands of one issue or pull request comment, in order. Never throws: every
 * problem is a `{ ok: false }` entry carrying what to tell the commenter. Line endings of
 * free text (reasons, feedback, plan bodies) come back as `\n`.
 */
export function parseCommands(body: string, context: CommandContext): ParsedCommand[] {
  // Review and comment bodies can arrive as null on the wire; treat that as an empty comment.
  const lines = splitLines(typeof body === 'string' ? body : '');
  const heads = findHeads(lines);
  const parsed: ParsedCommand[] = [];
  for (const [k, head] of heads.entries()) {
    const line = head.index + 1;
    if (head.name === undefined) {
      parsed.push({
        ok: false,
        error: { kind: 'unknown_command', name: head.typed, suggestion: head.suggestion },
        line,
      });
      continue;
    }
    if (head.name === 'plan') {
      // Whatever follows /plan is its tasks block, including lines that look like commands.
      parsed.push({ ...planOutcome(head.tail, lines.slice(head.index + 1), context), line });
      break;
    }
    // Free text runs to the next command line, so a reason or feedback can span lines.
    const end = heads[k + 1]?.index ?? lines.length;
    const following = lines.slice(head.index + 1, end);
    parsed.push({ ...interpret(head.name, head.tail, following, context), line });
  }
  return parsed;
}

function findHeads(lines: readonly string[]): Head[] {
  const mask = commandLineMask(lines);
  const heads: Head[] = [];
  lines.forEach((text, index) => {
    if (!mask[index]) return;
    const start = firstNonSpace(text);
    if (text.charCodeAt(start) !== SLASH) return;
    let end = start + 1;
    while (end < text.length && isAsciiLetter(text.charCodeAt(end))) end++;
    // `/usr/bin`, `/s.` and a bare `/` are not commands.
    if (end === start + 1 || (end < text.length && !WHITESPACE.test(text.charAt(end)))) return;
    const typed = text.slice(start + 1, end);
    const word = typed.toLowerCase();
    const name = toCommandName(word);
    if (name) {
      heads.push({ index, name, tail: text.slice(end) });
      return;
    }
    const suggestion = suggestCommand(word);
    if (suggestion) heads.push({ index, name: undefined, typed, suggestion });
  });
  return heads;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function interpret(
  name: Exclude<CommandName, 'plan'>,
  tail: string,
  following: readonly string[],
  context: CommandContext,
): Outcome {
  switch (name) {
    case 'approve':
      return context === 'issue' ? approveOnIssue(tail) : approveOnPullRequest(tail);
    case 'veto':
    case 'retry':
      return context === 'issue'
        ? freeTextOnIssue(name, tail, following)
        : freeText(name, undefined, joinText(tail, following));
    case 'status':
      if (context === 'pull_request') return fail({ kind: 'wrong_context', name, context });
      return withoutArguments({ name }, tail);
    case 'hold':
    case 'unhold':
    case 'cancel':
    case 'help':
      return withoutArguments({ name }, tail);
  }
}

function planOutcome(tail: string, rest: readonly string[], context: CommandContext): Outcome {
  if (context === 'pull_request') {
    return fail({ kind: 'wrong_context', name: 'plan', context });
  }
  const body = joinText(tail, rest);
  if (body === '') return fail({ kind: 'missing_argument', name: 'plan', argument: 'tasks block' });
  return { ok: true, command: { name: 'plan', body } };
}

function approveOnIssue(tail: string): Outcome {
  const split = splitWord(tail);
  if (!split) return { ok: true, command: { name: 'approve' } };
  if (!isTaskId(split.word))
    return fail({ kind: 'invalid_task_id', name: 'approve', text: split.word });
  const extra = split.rest.trim();
  if (extra !== '') return fail({ kind: 'unexpected_argument', name: 'approve', text: extra });
  return { ok: true, command: { name: 'approve', taskId: split.word } };
}

/** `/approve [sha]` on a PR: a commit named by 7 to 40 hex digits, lowercased. */
function approveOnPullRequest(tail: string): Outcome {
  const split = splitWord(tail);
  if (!split || split.rest.trim() !== '' || !COMMIT_SHA.test(split.word))
    return withoutArguments({ name: 'approve' }, tail);
  return { ok: true, command: { name: 'approve', sha: split.word.toLowerCase() } };
}

function freeTextOnIssue(
  name: 'veto' | 'retry',
  tail: string,
  following: readonly string[],
): Outcome {
  // The task id must be on the command line itself: `/veto <task_id> [reason]`.
  const split = splitWord(tail);
  if (!split) return fail({ kind: 'missing_argument', name, argument: 'task_id' });
  if (!isTaskId(split.word)) return fail({ kind: 'invalid_task_id', name, text: split.word });
  return freeText(name, split.word, joinText(split.rest, following));
}

function freeText(name: 'veto' | 'retry', taskId: string | undefined, text: string): Outcome {
  // Absent rather than undefined keys, so commands compare and serialise cleanly.
  const id = taskId === undefined ? {} : { taskId };
  if (text === '') return { ok: true, command: { name, ...id } };
  return {
    ok: true,
    command: name === 'veto' ? { name, ...id, reason: text } : { name, ...id, feedback: text },
  };
}

function withoutArguments(command: Command, tail: string): Outcome {
  const text = tail.trim();
  if (text !== '') return fail({ kind: 'unexpected_argument', name: command.name, text });
  return { ok: true, command };
}

function splitWord(tail: string): { word: string; rest: string } | undefined {
  const match = WORD_AND_REST.exec(tail.trimStart());
  if (!match) return undefined;
  return { word: match[1] ?? '', rest: match[2] ?? '' };
}

function joinText(firstLine: string, following: readonly string[]): string {
  return [firstLine, ...following].join('\n').trim();
}

function fail(error: CommandParseError): Outcome {
  return { ok: false, error };
}
