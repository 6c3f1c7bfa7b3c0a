import type { Probot } from 'probot';
import { commentFactsOf, commentIntent } from '../core/commands/index.js';
import { checkResultFactsOf, decideCheckResult } from '../core/merge/index.js';
import {
  labelFactsOf,
  labelStartsNothing,
  type TriggerLabelCache,
} from '../config/trigger-labels.js';

/**
 * The webhook events some handler is registered for (`issues` or `issues.labeled`), recorded as
 * the app registers them. A delivery no handler acts on (`workflow_job`, which the manifest
 * subscribes to but nothing handles yet; `check_run.created`; the App's own check results; a new
 * comment with neither a command nor the planner's plan in it, most comments on a busy
 * repository; a label that is not the repository's trigger, as far as the label handler knows) is
 * stored as handled at ingest and never claimed, decompressed or passed through
 * Probot (docs/running.md, "Deliveries and replicas").
 */
export class HandledEvents {
  private readonly names = new Set<string>();

  /**
   * `appId`: this App's id, whose own check results no handler waits on. `triggerLabels`: the
   * label handler's own cache of each repository's trigger label.
   */
  constructor(
    private readonly appId?: number,
    private readonly triggerLabels?: TriggerLabelCache,
  ) {}

  /** Every later `app.on` of this app is recorded here. */
  recordFrom(app: Probot): void {
    const on = app.on.bind(app);
    app.on = ((names: string | string[], handler: never) => {
      for (const name of [names].flat()) this.names.add(name);
      return on(names as never, handler);
    }) as typeof app.on;
  }

  actsOn(event: string, action: string | undefined, payload?: Record<string, unknown>): boolean {
    if (payload && !checkResultActsOn(event, action, payload, this.appId)) return false;
    // The comment handler's own first decision (commentIntent): such a comment asks nothing.
    if (payload && event === 'issue_comment' && action === 'created')
      if (commentIntent(commentFactsOf(payload), this.appId).kind === 'none') return false;
    if (payload && this.triggerLabels && event === 'issues' && action === 'labeled')
      if (labelStartsNothing(labelFactsOf(payload), this.triggerLabels)) return false;
    return this.names.has(event) || (action !== undefined && this.names.has(`${event}.${action}`));
  }
}

/**
 * A completed check run or suite that core's `decideCheckResult` leaves out: this App's own (its
 * order checks, whose results it wrote itself: one `check_run.completed` and one
 * `check_suite.completed` per agent PR head), or one naming no head. A re-run a person asks for
 * (`check_run.rerequested`) is not one of these.
 */
function checkResultActsOn(
  event: string,
  action: string | undefined,
  payload: Record<string, unknown>,
  appId: number | undefined,
): boolean {
  if (action !== 'completed' || (event !== 'check_run' && event !== 'check_suite')) return true;
  const [decision] = decideCheckResult(checkResultFactsOf(event, payload), appId);
  return decision.kind !== 'none';
}
