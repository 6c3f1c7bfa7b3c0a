import { describe, expect, it } from 'vitest';
import {
  afterFailedAttempt,
  afterSendBack,
  modeAfterFailedAttempt,
  type RetryPolicy,
} from '../../../src/core/lifecycle/index.js';

const NOW = new Date('2025-01-01T00:00:00Z');
const DEFAULTS: RetryPolicy = { max: 3, backoff: ['0s', '30s', '5m'] };

describe('afterFailedAttempt', () => {
  it.each<{ name: string; attempts: number; retries?: RetryPolicy; delayMs?: number }>([
    { name: 'the first attempt failed: retry at once', attempts: 1, delayMs: 0 },
    { name: 'the second: after the second backoff', attempts: 2, delayMs: 30_000 },
    { name: 'the third: after the third backoff', attempts: 3, delayMs: 300_000 },
    { name: 'the fourth is the last retry: fail for good', attempts: 4 },
    {
      name: 'past the backoff list: its last entry',
      attempts: 4,
      retries: { max: 5, backoff: ['1s', '2m'] },
      delayMs: 120_000,
    },
    {
      name: 'retries.max 0: the first failure is final',
      attempts: 1,
      retries: { max: 0, backoff: ['0s'] },
    },
    {
      name: 'milliseconds and hours',
      attempts: 2,
      retries: { max: 2, backoff: ['5ms', '1h'] },
      delayMs: 3_600_000,
    },
  ])('$name', ({ attempts, retries, delayMs }) => {
    const verdict = afterFailedAttempt(attempts, retries ?? DEFAULTS, NOW);
    expect(verdict).toEqual(
      delayMs === undefined
        ? { kind: 'fail' }
        : { kind: 'retry', delayMs, at: new Date(NOW.getTime() + delayMs) },
    );
  });
});

describe('afterSendBack', () => {
  it.each<{ attempts: number; max: number; expected: ReturnType<typeof afterSendBack> }>([
    { attempts: 1, max: 3, expected: { kind: 'send_back' } },
    { attempts: 3, max: 3, expected: { kind: 'send_back' } },
    {
      attempts: 4,
      max: 3,
      expected: { kind: 'fail', reason: 'no retries left to fix it: Failing checks: lint' },
    },
    {
      attempts: 1,
      max: 0,
      expected: { kind: 'fail', reason: 'no retries left to fix it: Failing checks: lint' },
    },
  ])('attempt $attempts of retries.max $max', ({ attempts, max, expected }) => {
    expect(afterSendBack(attempts, { max, backoff: ['0s'] }, 'Failing checks: lint')).toEqual(
      expected,
    );
  });

  it('allows exactly the attempts a failed attempt would be retried for', () => {
    for (let max = 0; max <= 4; max++)
      for (let attempts = 1; attempts <= 6; attempts++) {
        const retries = { max, backoff: ['0s'] };
        expect(afterSendBack(attempts, retries, 'x').kind === 'send_back').toBe(
          afterFailedAttempt(attempts, retries, NOW).kind === 'retry',
        );
      }
  });
});

describe('modeAfterFailedAttempt', () => {
  it.each<{
    name: string;
    failureReason: string | null;
    mode: 'work' | 'fix';
    hasPull: boolean;
    next: 'work' | 'fix';
  }>([
    {
      name: "the worker's timed_out with a PR: fix, on its pushed commits",
      failureReason: 'timed_out: the agent was stopped at its deadline; its work is kept',
      mode: 'work',
      hasPull: true,
      next: 'fix',
    },
    {
      name: "the sweep's own timeout with a PR: fix",
      failureReason: 'timed_out',
      mode: 'work',
      hasPull: true,
      next: 'fix',
    },
    {
      name: 'timed out with no PR: nothing to build on, work again',
      failureReason: 'timed_out',
      mode: 'work',
      hasPull: false,
      next: 'work',
    },
    {
      name: 'a timeout that kept nothing (timeout) is no timed_out',
      failureReason: 'timeout: the agent reached its time limit',
      mode: 'work',
      hasPull: true,
      next: 'work',
    },
    {
      name: 'any other failure keeps the mode: work',
      failureReason: 'agent_failed: exit 1',
      mode: 'work',
      hasPull: true,
      next: 'work',
    },
    {
      name: 'any other failure keeps the mode: fix',
      failureReason: 'push_failed',
      mode: 'fix',
      hasPull: true,
      next: 'fix',
    },
    { name: 'no reason stored', failureReason: null, mode: 'work', hasPull: true, next: 'work' },
  ])('$name', ({ failureReason, mode, hasPull, next }) => {
    expect(modeAfterFailedAttempt({ failureReason, mode, hasPull })).toBe(next);
  });
});
