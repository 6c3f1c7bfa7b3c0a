import { describe, expect, it } from 'vitest';
import { usageAnnotation, usageFromAnnotations } from '../../src/protocol/usage-annotation.js';

const USAGE = { costUsd: 0.044, inputTokens: 104_000, outputTokens: 1600 };

describe('the usage annotation', () => {
  it('reads back what the worker wrote, money to six decimals', () => {
    expect(usageAnnotation(USAGE)).toBe(
      'agent-coordinator-usage: cost_usd=0.044 input_tokens=104000 output_tokens=1600',
    );
    expect(usageFromAnnotations([usageAnnotation(USAGE)])).toEqual(USAGE);
    expect(usageAnnotation({ costUsd: 0.1 + 0.2, inputTokens: 1.4, outputTokens: 2.6 })).toBe(
      'agent-coordinator-usage: cost_usd=0.3 input_tokens=1 output_tokens=3',
    );
  });

  it.each([
    { name: 'none', messages: [], expected: undefined },
    {
      name: "the worker's other lines, which may quote the agent",
      messages: [
        'agent-coordinator: no_changes (agent-coordinator-usage: cost_usd=0 input_tokens=0 output_tokens=0)',
        'agent-coordinator: agent-coordinator-usage: cost_usd=0 input_tokens=0 output_tokens=0',
        'Process completed with exit code 1.',
      ],
      expected: undefined,
    },
    {
      name: 'malformed figures',
      messages: [
        'agent-coordinator-usage: cost_usd=-1 input_tokens=0 output_tokens=0',
        'agent-coordinator-usage: cost_usd=1e3 input_tokens=0 output_tokens=0',
        'agent-coordinator-usage: cost_usd=1 input_tokens=0',
        'agent-coordinator-usage: cost_usd=1 input_tokens=0 output_tokens=0 and more',
      ],
      expected: undefined,
    },
    {
      name: 'several: the larger of each figure',
      messages: [
        'agent-coordinator-usage: cost_usd=0.5 input_tokens=10 output_tokens=900',
        'agent-coordinator-usage: cost_usd=0.25 input_tokens=2000 output_tokens=1',
      ],
      expected: { costUsd: 0.5, inputTokens: 2000, outputTokens: 900 },
    },
    {
      name: 'surrounding whitespace, as an annotation message may carry',
      messages: ['  agent-coordinator-usage: cost_usd=2 input_tokens=3 output_tokens=4\n'],
      expected: { costUsd: 2, inputTokens: 3, outputTokens: 4 },
    },
  ])('reads $name', ({ messages, expected }) => {
    expect(usageFromAnnotations(messages)).toEqual(expected);
  });
});
