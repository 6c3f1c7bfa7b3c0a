import { describe, expect, it } from 'vitest';
import { decideChecksRerun, type FailingCheck } from '../../../src/core/merge/index.js';

const job = (name: string): FailingCheck => ({ name, rerunnable: true });
const external = (name: string): FailingCheck => ({ name, rerunnable: false });

describe('decideChecksRerun', () => {
  it.each<{
    name: string;
    failing: FailingCheck[];
    rerunsForHead: number;
    rerunFailed: number;
    expected: { kind: 'rerun'; names: string[] } | { kind: 'send_back'; why: RegExp };
  }>([
    {
      name: 'a failing Actions job, none re-run yet: re-run it',
      failing: [job('test')],
      rerunsForHead: 0,
      rerunFailed: 1,
      expected: { kind: 'rerun', names: ['test'] },
    },
    {
      name: 'it failed again: to the worker',
      failing: [job('test')],
      rerunsForHead: 1,
      rerunFailed: 1,
      expected: { kind: 'send_back', why: /re-run 1 time already/ },
    },
    {
      name: 'rerunFailed 2: a second chance',
      failing: [job('test'), job('lint')],
      rerunsForHead: 1,
      rerunFailed: 2,
      expected: { kind: 'rerun', names: ['test', 'lint'] },
    },
    {
      name: 'rerunFailed 2, both used',
      failing: [job('test')],
      rerunsForHead: 2,
      rerunFailed: 2,
      expected: { kind: 'send_back', why: /re-run 2 times already/ },
    },
    {
      name: 'rerunFailed 0: never',
      failing: [job('test')],
      rerunsForHead: 0,
      rerunFailed: 0,
      expected: { kind: 'send_back', why: /rerunFailed is 0/ },
    },
    {
      name: 'a failing check of another CI system: to the worker with everything',
      failing: [job('test'), external('ci/jenkins')],
      rerunsForHead: 0,
      rerunFailed: 1,
      expected: { kind: 'send_back', why: /not re-runnable: ci\/jenkins/ },
    },
  ])('$name', ({ failing, rerunsForHead, rerunFailed, expected }) => {
    const verdict = decideChecksRerun(failing, { rerunsForHead, rerunFailed });
    if (expected.kind === 'rerun') expect(verdict).toEqual(expected);
    else {
      expect(verdict.kind).toBe('send_back');
      expect(verdict.kind === 'send_back' && verdict.why).toMatch(expected.why);
    }
  });
});
