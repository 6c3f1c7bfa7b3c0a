import {
  failureAnnotation,
  failureNotice,
  type WorkerFailureReason,
} from '../protocol/failure-reasons.js';

/**
 * Why an attempt ended (the reasons and their meaning: src/protocol/failure-reasons.ts). The
 * last log line carries it (`::error::agent-coordinator: <reason> (<detail>)`) so a person reading the
 * run, and the coordinator reading its annotations, see the same word.
 */
export type FailureReason = WorkerFailureReason;

export type WorkerOutcome =
  | {
      ok: true;
      summary: string;
      pullRequest?: { number: number; url: string; created: boolean };
      commit?: string;
      commentId?: number;
    }
  | {
      ok: false;
      reason: FailureReason;
      detail: string;
      /** A `timed_out` attempt still pushed its work and updated its PR. */
      pullRequest?: { number: number; url: string; created: boolean };
      commit?: string;
    };

/** Thrown anywhere in a mode to end the attempt with a reason; anything else is a bug. */
export class WorkerFailure extends Error {
  constructor(
    readonly reason: FailureReason,
    detail: string,
  ) {
    super(detail);
  }
}

export function fail(reason: FailureReason, detail: string): never {
  throw new WorkerFailure(reason, detail);
}

/** Workflow commands end at a newline; anything after one could start a command of its own. */
export function oneLine(text: string): string {
  return inertToRunner(text.replace(/[\r\n]+/g, ' ')).slice(0, 2000);
}

/**
 * Text for a line of the worker's log that may quote what the agent wrote (a file name, git's
 * words about it, the agent's error). The runner takes a line that starts with `::` as a workflow
 * command, and one holding `##[name]` anywhere as the command's legacy form (actions/runner:
 * `ActionCommandManager.TryProcessCommand` tries `ActionCommand.TryParseV2`, then `TryParse`,
 * which finds `##[` at any index). A FIFO named `##[add-mask]agent-coordinator-usage` would hide
 * the usage annotation the coordinator charges (docs/worker.md, "What the agent spent"): a word
 * joiner inside each `##[` leaves none. The caller starts the line with its own prefix.
 *
 * Nor may the text read as the worker's own annotation to a problem matcher. A step before the
 * worker's registers them for the rest of the job (actions/setup-node: `tsc`, `eslint-compact`),
 * and the runner matches each line that is not a command against them, commands stopped or not
 * (`OutputManager.OnDataReceived`), making an annotation of the part a pattern names the message
 * (`a.ts(1,1): error TS1: <message>`). The coordinator takes a failed run's first error
 * annotation in the worker's words for the attempt's reason (src/engine/worker-report.ts): each
 * `agent-coordinator` gets a non-breaking hyphen (U+2011), which reads the same and, unlike an
 * invisible character, no store of the message would drop. NUL goes first: before matching, the
 * runner strips what it takes for a colour code, `\x0033\[[0-9;]*m?`, which .NET reads as NUL,
 * `33[` and the rest, and would join `agent-coord<NUL>33[minator` back.
 */
export function inertToRunner(text: string): string {
  return text
    .replaceAll('\0', '\uFFFD')
    .replace(/agent-coordinator/gi, (word) => `${word.slice(0, 5)}\u2011${word.slice(6)}`)
    .replaceAll('##[', '#\u2060#[');
}

/** Text of any number of lines as lines of the log, each behind the worker's prefix. */
export function prefixedLines(text: string): string[] {
  return text
    .split(/\r\n|\n|\r/)
    .filter((line) => line.trim() !== '')
    .map((line) => `agent-coordinator: ${inertToRunner(line).slice(0, 2000)}`);
}

export function outcomeLines(outcome: WorkerOutcome): string[] {
  if (outcome.ok) return [`::notice::agent-coordinator: ${oneLine(outcome.summary)}`];
  // Every detail line starts with our prefix, so none of them can be a workflow command.
  const detail = prefixedLines(outcome.detail);
  // The error line becomes the job's annotation, which the coordinator reads; its detail is
  // cut short there (a whole log's worth belongs in the lines above).
  const annotation = failureAnnotation(outcome.reason, outcome.detail.slice(0, 1000));
  // The notice says it again where the agent's lines cannot crowd it out (failure-reasons.ts).
  const notice = failureNotice(outcome.reason, outcome.detail.slice(0, 1000));
  return [
    ...detail,
    `::notice::${escapeCommandData(notice)}`,
    `::error::${escapeCommandData(annotation)}`,
  ];
}

/**
 * Workflow command data as @actions/core escapes it (`%`, CR, LF as `%25`, `%0D`, `%0A`); the
 * runner unescapes it into the annotation's message.
 */
export function escapeCommandData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
