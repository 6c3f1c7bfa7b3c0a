export type { Command, CommandContext, CommandParseError, ParsedCommand } from './types.js';
export { COMMAND_NAMES } from './command-names.js';
export { parseCommands } from './parse-commands.js';
export { describeParseError } from './describe-error.js';
export { helpText } from './help-text.js';
export { codeSpan } from './code-span.js';
export { NOT_ANSWERED } from './not-answered.js';
export { answerBody, answerMarker } from './answer-marker.js';
export {
  mayReplyToRefusal,
  REFUSAL_REPLY_LIMITS,
  REFUSAL_REPLY_WINDOW_MS,
  type RefusalRepliesSent,
} from './refusal-replies.js';
export { decideCommand, taskInState } from './decide-command.js';
export type {
  CommandDecision,
  CommandEffect,
  CommandSnapshot,
  CommandTarget,
  CommandTask,
} from './command-effects.js';
export { commentFactsOf, commentIntent } from './comment-intent.js';
export type { CommentFacts } from './comment-intent.js';
