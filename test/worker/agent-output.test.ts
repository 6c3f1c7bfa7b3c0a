import { describe, expect, it } from 'vitest';
import { parseAgentOutput } from '../../src/worker/agent-output.js';

const claude = {
  type: 'result',
  subtype: 'success',
  is_error: false,
  result: 'Done.',
  total_cost_usd: 0.1234,
  usage: { input_tokens: 10, cache_read_input_tokens: 500, output_tokens: 20 },
};

describe('parseAgentOutput', () => {
  it('reads Claude Code --output-format json', () => {
    expect(parseAgentOutput(JSON.stringify(claude))).toEqual({
      result: 'Done.',
      usage: { costUsd: 0.1234, inputTokens: 10, outputTokens: 20 },
      isError: false,
      structured: true,
    });
  });

  it('reads the result message out of --verbose arrays and stream-json lines', () => {
    const array = JSON.stringify([{ type: 'system' }, { type: 'assistant' }, claude]);
    expect(parseAgentOutput(array).usage?.costUsd).toBe(0.1234);
    const stream = ['{"type":"system"}', 'progress text', JSON.stringify(claude), ''].join('\n');
    expect(parseAgentOutput(stream).result).toBe('Done.');
  });

  it('treats anything else as plain text without usage', () => {
    expect(parseAgentOutput('all good\n')).toEqual({
      result: 'all good\n',
      isError: false,
      structured: false,
    });
    expect(parseAgentOutput('{"not":"a result"}').usage).toBeUndefined();
  });

  it('passes on is_error, e.g. when the agent ran out of turns', () => {
    const out = parseAgentOutput(
      JSON.stringify({ ...claude, subtype: 'error_max_turns', is_error: true }),
    );
    expect(out.isError).toBe(true);
  });

  it('ignores nonsense numbers', () => {
    const out = parseAgentOutput(
      JSON.stringify({ ...claude, total_cost_usd: -1, usage: { input_tokens: 'x' } }),
    );
    expect(out.usage).toBeUndefined();
  });
});
