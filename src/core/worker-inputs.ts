import type { AssignmentResponse } from '../protocol/assignment.js';
import { visibleMarkdown, withoutInvisibleCharacters } from './visible-text.js';

/**
 * The assignment's words (docs/worker.md, "Assignment"): the dispatch carries identifiers only
 * (src/protocol/assignment.ts), and the worker fetches the rest — prompt, feedback, the token —
 * from the coordinator. Nothing is cut to fit a payload: the assignment answer has no size
 * limit worth the name.
 */
export interface AssignmentSource {
  issueNumber: number;
  title: string;
  /** The task's own prompt; when absent the default is the title and the issue body. */
  prompt?: string | null;
  issueTitle: string;
  issueBody: string;
  feedback?: string | null;
  base: string | null;
  /** The run's base, said only when `base` is a stack parent's branch. */
  runBase?: string | null;
  /** The stack parent's PR the attempt was dispatched on (`stackedPull`), kept after it merged. */
  stackParentPr?: number | null;
  timeoutMinutes: number;
  model: string;
  maxTurns: number;
  /** `worker.network.allow`: the hosts the agent may reach, `*` for any. */
  networkAllow: readonly string[];
}

export type AssignmentText = Pick<
  AssignmentResponse,
  | 'title'
  | 'prompt'
  | 'feedback'
  | 'base'
  | 'run_base'
  | 'stack_parent_pr'
  | 'model'
  | 'max_turns'
  | 'timeout_minutes'
  | 'network'
>;

/**
 * The assignment's words: the whole prompt and feedback, verbatim, but for what a person reading
 * them on GitHub could not see (src/core/visible-text.ts): the issue, a writer chose by reading
 * it, is given as GitHub showed it, and no title or prompt carries a character that renders as
 * nothing.
 */
export function composeAssignment(source: AssignmentSource): AssignmentText {
  const title = withoutInvisibleCharacters(source.title);
  const prompt =
    source.prompt != null
      ? withoutInvisibleCharacters(source.prompt)
      : [
          title,
          '',
          `From issue #${source.issueNumber}: ${withoutInvisibleCharacters(source.issueTitle)}`,
          '',
          visibleMarkdown(source.issueBody),
        ].join('\n');
  return {
    title,
    prompt,
    feedback: source.feedback ? source.feedback : null,
    base: source.base,
    ...(source.runBase && source.runBase !== source.base && { run_base: source.runBase }),
    ...(source.stackParentPr != null && { stack_parent_pr: String(source.stackParentPr) }),
    model: source.model,
    max_turns: String(source.maxTurns),
    timeout_minutes: String(source.timeoutMinutes),
    network: { allow: [...source.networkAllow] },
  };
}

/** The planner's assignment: its words are the issue's own, as GitHub showed them. */
export function composePlannerAssignment(
  source: Omit<AssignmentSource, 'title' | 'prompt' | 'feedback'>,
): AssignmentText {
  return composeAssignment({
    ...source,
    title: source.issueTitle,
    prompt: visibleMarkdown(source.issueBody),
  });
}
