import { describe, expect, it } from 'vitest';
import {
  decideLabelStart,
  type LabelStartFacts,
  type LabelStartVerdict,
} from '../../../src/core/lifecycle/index.js';

const LABEL = 'agent';
const TRIGGER = '2026-03-01T10:00:00Z';
const ran = new Date('2026-03-01T10:00:02.500Z');

function facts(over: Partial<LabelStartFacts> = {}): LabelStartFacts {
  return {
    triggerLabel: LABEL,
    updatedAt: '2026-03-01T11:00:00Z',
    now: { state: 'open', labels: ['bug', LABEL] },
    latest: null,
    deliveryReceivedAt: null,
    ...over,
  };
}

const finished = { finished: true, createdAt: ran, triggerUpdatedAt: new Date(TRIGGER) };

/** docs/lifecycle.md step 1: a label event starts a run only if GitHub's issue still asks for one. */
describe('decideLabelStart', () => {
  it.each<{ name: string; facts: LabelStartFacts; expected: LabelStartVerdict['kind'] }>([
    { name: 'first label of an open issue: starts', facts: facts(), expected: 'start' },
    {
      name: 'the issue closed since: nothing',
      facts: facts({ now: { state: 'closed', labels: [LABEL] } }),
      expected: 'ignore',
    },
    {
      name: 'the label removed since: nothing',
      facts: facts({ now: { state: 'open', labels: ['bug'] } }),
      expected: 'ignore',
    },
    {
      name: 'another label of the same name in other case is not the trigger',
      facts: facts({ now: { state: 'open', labels: ['Agent'] } }),
      expected: 'ignore',
    },
    { name: 'the issue gone: nothing', facts: facts({ now: null }), expected: 'ignore' },
    {
      name: 'an undated payload: nothing',
      facts: facts({ updatedAt: 'not a date' }),
      expected: 'ignore',
    },
    {
      name: 'a relabel after the last run finished: starts',
      facts: facts({ latest: finished }),
      expected: 'start',
    },
    {
      name: "the finished run's own trigger, sent again (label still on): nothing",
      facts: facts({ updatedAt: TRIGGER, latest: finished }),
      expected: 'ignore',
    },
    {
      name: 'a label event older than the last run’s trigger: nothing',
      facts: facts({ updatedAt: '2026-03-01T09:59:59Z', latest: finished }),
      expected: 'ignore',
    },
    {
      name: 'the same delivery id handled again after its run finished: nothing',
      facts: facts({
        latest: { ...finished, triggerUpdatedAt: null },
        deliveryReceivedAt: new Date('2026-03-01T10:00:02Z'),
      }),
      expected: 'ignore',
    },
    {
      name: 'a run from before triggers were dated: decided on the issue now',
      facts: facts({ updatedAt: TRIGGER, latest: { ...finished, triggerUpdatedAt: null } }),
      expected: 'start',
    },
    {
      name: 'an active run (its own trigger retried, or another label): left to the start',
      facts: facts({ updatedAt: TRIGGER, latest: { ...finished, finished: false } }),
      expected: 'start',
    },
    {
      name: 'an active run, but the issue closed now: nothing',
      facts: facts({
        now: { state: 'closed', labels: [LABEL] },
        latest: { ...finished, finished: false },
      }),
      expected: 'ignore',
    },
  ])('$name', ({ facts: f, expected }) => {
    expect(decideLabelStart(f).kind).toBe(expected);
  });

  it('says why nothing starts', () => {
    expect(decideLabelStart(facts({ now: { state: 'open', labels: [] } }))).toEqual({
      kind: 'ignore',
      why: 'the label is no longer on the issue',
    });
    expect(decideLabelStart(facts({ updatedAt: TRIGGER, latest: finished }))).toEqual({
      kind: 'ignore',
      why: 'label event no later than the one that started the last run',
    });
  });
});
