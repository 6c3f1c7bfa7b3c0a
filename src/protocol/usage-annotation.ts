import {
  largerUsage,
  USAGE_FIGURES_SOURCE,
  usageFigures,
  usageFromFigures,
  type Usage,
} from './markers.js';

/**
 * What an attempt's agent spent (docs/worker.md, "What the agent spent"): the agent job prints it
 * as a `::notice::` as soon as the agent has ended, which GitHub makes an annotation of the job's
 * check run, and the coordinator reads it with a failed run's reason (a publish job that got its
 * token has said it already, with its request). Writer and reader live here together, so the two
 * sides cannot drift apart.
 *
 * The prefix is not the `agent-coordinator: ` every other worker line starts with, so no line
 * that quotes the agent (its summary, a failure's detail) can be read as one. Only the worker
 * prints workflow commands (they are off while the agent prints); should two such annotations be
 * read, the larger of each figure counts, so one more could only raise what is charged.
 */
export function usageAnnotation(u: Usage): string {
  return `agent-coordinator-usage: ${usageFigures(u)}`;
}

const USAGE = new RegExp(`^agent-coordinator-usage: ${USAGE_FIGURES_SOURCE}$`);

/** The usage the annotations record, the larger of each figure where several do; else undefined. */
export function usageFromAnnotations(messages: readonly string[]): Usage | undefined {
  let found: Usage | undefined;
  for (const message of messages) {
    const match = USAGE.exec(message.trim());
    const usage = match ? usageFromFigures(match) : undefined;
    if (!usage) continue;
    found = largerUsage(found, usage);
  }
  return found;
}
