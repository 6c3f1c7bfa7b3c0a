import { describe, expect, it } from 'vitest';
import {
  labelFactsOf,
  labelStartsNothing,
  TriggerLabelCache,
} from '../../src/config/trigger-labels.js';
import { examplePayload } from '../helpers/payloads.js';

describe('TriggerLabelCache', () => {
  it('knows a label is not the trigger only while the entry is fresh', () => {
    let now = 0;
    const cache = new TriggerLabelCache(60_000, () => now);
    expect(cache.isKnownOther(1, 'bug')).toBe(false);
    cache.remember(1, 'agent');
    expect(cache.isKnownOther(1, 'bug')).toBe(true);
    expect(cache.isKnownOther(1, 'agent')).toBe(false);
    expect(cache.isKnownOther(2, 'bug')).toBe(false);
    now = 59_999;
    expect(cache.isKnownOther(1, 'bug')).toBe(true);
    now = 60_000;
    expect(cache.isKnownOther(1, 'bug')).toBe(false);
  });

  it('forgets the repository remembered longest ago when full', () => {
    const cache = new TriggerLabelCache(60_000, () => 0, 2);
    cache.remember(1, 'a');
    cache.remember(2, 'a');
    cache.remember(1, 'a');
    cache.remember(3, 'a');
    expect(cache.isKnownOther(2, 'x')).toBe(false);
    expect(cache.isKnownOther(1, 'x')).toBe(true);
    expect(cache.isKnownOther(3, 'x')).toBe(true);
  });
});

describe('labelStartsNothing: the label handler’s first decision, made at ingest too', () => {
  const cache = new TriggerLabelCache(60_000, () => 0);
  cache.remember(1, 'agent');
  const labeled = (repositoryId: number, label: string | null, senderType = 'User') =>
    labelFactsOf(
      examplePayload('issues', 'labeled', {
        repository: {
          ...examplePayload<{ repository: object }>('issues', 'labeled').repository,
          id: repositoryId,
        },
        label: label === null ? undefined : { id: 1, name: label },
        sender: { login: 'someone', type: senderType },
      }),
    );

  it.each([
    ['another label of a repository whose trigger is known', labeled(1, 'bug'), true],
    ['the known trigger', labeled(1, 'agent'), false],
    ['a label of a repository whose trigger is not known', labeled(2, 'bug'), false],
    ['a bot’s label (this App’s agent:done among them)', labeled(1, 'agent', 'Bot'), true],
    ['an event with no label', labeled(1, null), true],
  ])('%s → %s', (_case, facts, startsNothing) => {
    expect(labelStartsNothing(facts, cache)).toBe(startsNothing);
  });

  it('reads odd payloads without throwing, and decides nothing from them', () => {
    expect(labelFactsOf({})).toEqual({
      repositoryId: undefined,
      label: undefined,
      senderIsBot: false,
    });
    expect(labelFactsOf({ label: null, sender: null, repository: null })).toEqual({
      repositoryId: undefined,
      label: undefined,
      senderIsBot: false,
    });
    expect(labelStartsNothing(labelFactsOf({ label: { name: 'bug' } }), cache)).toBe(false);
  });
});
