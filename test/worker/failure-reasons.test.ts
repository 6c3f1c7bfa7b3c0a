import { describe, expect, it } from 'vitest';
import {
  failureFromAnnotation,
  failureFromNotice,
  reasonFromAnnotation,
  WORKER_FAILURE_REASONS,
} from '../../src/protocol/failure-reasons.js';
import { outcomeLines } from '../../src/worker/outcome.js';

describe('worker failure reasons', () => {
  it('round-trip from the worker last log line to the annotation reader', () => {
    for (const reason of Object.keys(
      WORKER_FAILURE_REASONS,
    ) as (keyof typeof WORKER_FAILURE_REASONS)[]) {
      const last = outcomeLines({ ok: false, reason, detail: 'why' }).at(-1)!;
      // GitHub makes the text after `::error::` the annotation's message.
      expect(reasonFromAnnotation(last.replace(/^::error::/, ''))).toBe(reason);
      // The notice before it says the same.
      const notice = outcomeLines({ ok: false, reason, detail: 'why' }).at(-2)!;
      expect(failureFromNotice(notice.replace(/^::notice::/, ''))).toEqual({
        reason,
        detail: 'why',
      });
    }
    expect(WORKER_FAILURE_REASONS.workflow_files_changed).toContain('.github/workflows/');
  });

  it('carries the detail, on one line, through the runner unescaping the command data', () => {
    const last = outcomeLines({
      ok: false,
      reason: 'agent_failed',
      detail: 'the agent reported an error: error_max_turns: 100% of (3)\nturns used',
    }).at(-1)!;
    expect(last).not.toMatch(/[\r\n]/);
    // The runner's unescaping of `::error::` data (%25, %0D, %0A) gives the annotation message.
    const message = decodeURIComponent(last.replace(/^::error::/, ''));
    expect(failureFromAnnotation(message)).toEqual({
      reason: 'agent_failed',
      detail: 'the agent reported an error: error_max_turns: 100% of (3) turns used',
    });
    expect(failureFromAnnotation('agent-coordinator: no_changes')).toEqual({
      reason: 'no_changes',
      detail: '',
    });
  });

  it('reads nothing into other annotations', () => {
    expect(reasonFromAnnotation('agent-coordinator: made_up')).toBeUndefined();
    expect(reasonFromAnnotation('Process completed with exit code 1.')).toBeUndefined();
    expect(reasonFromAnnotation('agent-coordinator: no_changes (x) and more')).toBeUndefined();
    expect(failureFromNotice('agent-coordinator: no_changes (x)')).toBeUndefined();
    expect(failureFromNotice('agent-coordinator-failure: made_up (x)')).toBeUndefined();
    expect(failureFromNotice('x agent-coordinator-failure: no_changes (x)')).toBeUndefined();
    expect(failureFromNotice('agent-coordinator-failure: no_changes')).toEqual({
      reason: 'no_changes',
      detail: '',
    });
  });
});
