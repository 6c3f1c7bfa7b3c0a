import { flattenLine } from '../core/inert-markdown.js';
import { runNeverStarted } from '../core/lifecycle/index.js';
import {
  failureFromAnnotation,
  failureFromNotice,
  type WorkerFailureAnnotation,
} from '../protocol/failure-reasons.js';
import type { Usage } from '../protocol/markers.js';
import { usageFromAnnotations } from '../protocol/usage-annotation.js';
import type { WorkflowRunInfo } from '../github/port.js';
import type { Engine, RunScope } from './context.js';

/** An attempt's stored reason stays a line of a comment, not a whole log. */
const MAX_REASON = 1000;

/** What the worker's jobs say of an attempt that ended without a PR's usage marker. */
export interface WorkerReport {
  /** Why it failed, as `<reason>: <detail>`. */
  reason?: string;
  /** What it spent that no usage marker records (src/protocol/usage-annotation.ts). */
  usage?: Usage;
}

/**
 * What the worker says of its run, from its jobs' annotations. Why it failed, as `<reason>:
 * <detail>` (e.g. `workflow_files_changed: … .github/workflows/ci.yml`): its last log line,
 * `::error::agent-coordinator: <reason> (<detail>)`, is an annotation of the job's check run.
 * When ten errors of the agent's lines crowded that out, the notice before it,
 * `agent-coordinator-failure: <reason> (<detail>)`, says the same (src/protocol/failure-reasons.ts).
 * The text is the agent's and the repository's, so it is untrusted: callers render it inert.
 * What it spent, from the `::notice::` line before it. Either is undefined when there is none (a
 * startup failure has no job; a cancelled job may never print) or GitHub would not say: the
 * run's conclusion then stands, and failure handling never waits on this read.
 */
export async function workerReport(
  engine: Engine,
  scope: RunScope,
  wr: WorkflowRunInfo,
): Promise<WorkerReport> {
  if (runNeverStarted(wr.conclusion)) return {};
  let annotations;
  try {
    annotations = await scope.port.runAnnotations(scope.repo, wr.id, wr.runAttempt);
  } catch (error) {
    engine.log.warn(
      { run: scope.run.id, workflowRun: wr.id, err: error },
      "could not read the worker job's annotations; recording the run's conclusion",
    );
    return {};
  }
  const usage = usageOf(annotations);
  const report: WorkerReport = usage ? { usage } : {};
  // The error first (a worker from before the notice prints it alone), then the notice that
  // says the same where ten errors of the agent's lines left the error no room.
  const found =
    firstSaid(annotations, 'failure', failureFromAnnotation) ??
    firstSaid(annotations, 'notice', failureFromNotice);
  if (!found) return report;
  const text = found.detail ? `${found.reason}: ${found.detail}` : found.reason;
  return { ...report, reason: flattenLine(text).slice(0, MAX_REASON) };
}

function firstSaid(
  annotations: readonly { level: string; message: string }[],
  level: string,
  read: (message: string) => WorkerFailureAnnotation | undefined,
): WorkerFailureAnnotation | undefined {
  for (const a of annotations) {
    const found = a.level === level ? read(a.message) : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * What a re-run of a worker run's jobs (`wr.runAttempt`, 2 and on) said its agent spent, read from
 * the annotations of the jobs it ran; undefined when it said nothing (no agent started). A read
 * GitHub fails throws: nothing waits on it, and the delivery is handled again.
 */
export async function rerunUsage(scope: RunScope, wr: WorkflowRunInfo): Promise<Usage | undefined> {
  return usageOf(await scope.port.runAnnotations(scope.repo, wr.id, wr.runAttempt));
}

function usageOf(annotations: readonly { level: string; message: string }[]): Usage | undefined {
  return usageFromAnnotations(
    annotations.filter((a) => a.level === 'notice').map((a) => a.message),
  );
}
