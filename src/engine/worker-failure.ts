import { flattenLine } from '../core/inert-markdown.js';
import { runNeverStarted } from '../core/lifecycle/index.js';
import { failureFromAnnotation } from '../protocol/failure-reasons.js';
import type { WorkflowRunInfo } from '../github/port.js';
import type { Engine, RunScope } from './context.js';

/** An attempt's stored reason stays a line of a comment, not a whole log. */
const MAX_REASON = 1000;

/**
 * Why the worker says its run failed, as `<reason>: <detail>` (e.g. `workflow_files_changed:
 * … .github/workflows/ci.yml`): its last log line, `::error::agent-coordinator: <reason>
 * (<detail>)`, is an annotation of the job's check run. The text is the agent's and the
 * repository's, so it is untrusted: callers render it inert. Undefined when there is none
 * (a startup failure has no job; a cancelled job may never print) or GitHub would not say:
 * the run's conclusion then stands, and failure handling never waits on this read.
 */
export async function workerFailureReason(
  engine: Engine,
  scope: RunScope,
  wr: WorkflowRunInfo,
): Promise<string | undefined> {
  if (runNeverStarted(wr.conclusion)) return undefined;
  let messages: string[];
  try {
    messages = await scope.port.runFailureAnnotations(scope.repo, wr.id);
  } catch (error) {
    engine.log.warn(
      { run: scope.run.id, workflowRun: wr.id, err: error },
      "could not read the worker job's annotations; recording the run's conclusion",
    );
    return undefined;
  }
  for (const message of messages) {
    const found = failureFromAnnotation(message);
    if (!found) continue;
    const text = found.detail ? `${found.reason}: ${found.detail}` : found.reason;
    return flattenLine(text).slice(0, MAX_REASON);
  }
  return undefined;
}
