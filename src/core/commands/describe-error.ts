import { codeSpan } from './code-span.js';
import type { CommandContext, CommandParseError } from './types.js';

// Shown when an argument is missing; only issue commands have required arguments.
// A Map, not an object: error names are strings and `toString` must not find a prototype.
const USAGE = new Map<string, string>([
  ['veto', '/veto <task_id> [reason]'],
  ['retry', '/retry <task_id> [feedback]'],
]);

const PLACE: Record<CommandContext, string> = {
  issue: 'the issue',
  pull_request: 'an agent pull request',
};

/** One short sentence for the reply to a rejected command; commenter text is code-spanned. */
export function describeParseError(error: CommandParseError): string {
  const command = codeSpan(`/${error.name}`);
  switch (error.kind) {
    case 'unknown_command':
      return `Unknown command ${command}; did you mean ${codeSpan(`/${error.suggestion}`)}?`;
    case 'wrong_context': {
      const other: CommandContext = error.context === 'issue' ? 'pull_request' : 'issue';
      return `${command} only works on ${PLACE[other]}, not on ${PLACE[error.context]}.`;
    }
    case 'missing_argument': {
      if (error.argument === 'tasks block') {
        return `${command} needs a tasks block after it.`;
      }
      const usage = USAGE.get(error.name);
      const hint = usage === undefined ? '' : `: ${codeSpan(usage)}`;
      return `${command} needs ${codeSpan(`<${error.argument}>`)}${hint}.`;
    }
    case 'unexpected_argument':
      return `Unexpected text after ${command}: ${codeSpan(error.text)}.`;
    case 'invalid_task_id':
      return `${codeSpan(error.text)} is not a valid task id: use up to 40 lowercase letters, digits, \`_\` or \`-\`, starting with a letter or digit.`;
  }
}
