import { describe, expect, it } from 'vitest';
import {
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
    }
    expect(WORKER_FAILURE_REASONS.workflow_files_changed).toContain('.github/workflows/');
  });

  it('reads nothing into other annotations', () => {
    expect(reasonFromAnnotation('agent-coordinator: made_up')).toBeUndefined();
    expect(reasonFromAnnotation('Process completed with exit code 1.')).toBeUndefined();
  });
});
