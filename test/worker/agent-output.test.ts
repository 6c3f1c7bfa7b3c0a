import { describe, expect, it } from 'vitest';
import { parseAgentOutput } from '../../src/worker/agent-output.js';

// Shaped as @anthropic-ai/claude-agent-sdk 0.3.332's SDKResultSuccess / SDKResultError
// (sdk.d.ts), which Claude Code 2.1.332 prints for `-p --output-format json`.
const success = {
  type: 'result',
  subtype: 'success',
  duration_ms: 48211,
  duration_api_ms: 40110,
  is_error: false,
  num_turns: 12,
  result: 'Done.',
  stop_reason: 'end_turn',
  session_id: '3f0e7a52-5d7b-4c1e-9d4e-0c2f6f8b1a11',
  total_cost_usd: 0.1234,
  usage: {
    input_tokens: 10,
    cache_creation_input_tokens: 300,
    cache_read_input_tokens: 500,
    output_tokens: 20,
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: 'standard',
  },
  modelUsage: {},
  permission_denials: [],
};

// What its CLI builds when the turn limit is hit: no `result`, the reason in `errors`.
const maxTurns = {
  type: 'result',
  subtype: 'error_max_turns',
  duration_ms: 9000,
  duration_api_ms: 8000,
  is_error: true,
  num_turns: 3,
  stop_reason: null,
  total_cost_usd: 0.05,
  usage: {
    input_tokens: 4,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 60,
    output_tokens: 7,
  },
  modelUsage: {},
  permission_denials: [],
  errors: ['Reached maximum number of turns (3)'],
};

describe('parseAgentOutput', () => {
  it('reads Claude Code --output-format json, counting cache reads and writes as input', () => {
    expect(parseAgentOutput(JSON.stringify(success))).toEqual({
      result: 'Done.',
      usage: { costUsd: 0.1234, inputTokens: 810, outputTokens: 20 },
      isError: false,
      failure: '',
      structured: true,
    });
  });

  it('prefers modelUsage, which adds subagents and internal calls to the main loop', () => {
    const out = parseAgentOutput(
      JSON.stringify({
        ...success,
        modelUsage: {
          'claude-sonnet-4-5': {
            inputTokens: 100,
            outputTokens: 50,
            cacheReadInputTokens: 1000,
            cacheCreationInputTokens: 200,
            webSearchRequests: 0,
            costUSD: 0.1,
            contextWindow: 200000,
            maxOutputTokens: 64000,
          },
          'claude-haiku-4-5': {
            inputTokens: 30,
            outputTokens: 5,
            cacheReadInputTokens: 0,
            cacheCreationInputTokens: 0,
            webSearchRequests: 0,
            costUSD: 0.0234,
            contextWindow: 200000,
            maxOutputTokens: 64000,
          },
        },
      }),
    );
    expect(out.usage).toEqual({ costUsd: 0.1234, inputTokens: 1330, outputTokens: 55 });
  });

  it('gives the reason of an error result from errors[], with its subtype', () => {
    expect(parseAgentOutput(JSON.stringify(maxTurns))).toEqual({
      result: '',
      usage: { costUsd: 0.05, inputTokens: 64, outputTokens: 7 },
      isError: true,
      failure: 'error_max_turns: Reached maximum number of turns (3)',
      structured: true,
    });
    const during = parseAgentOutput(
      JSON.stringify({
        ...maxTurns,
        subtype: 'error_during_execution',
        errors: ['API Error: 529 overloaded', 'retries exhausted'],
      }),
    );
    expect(during.failure).toBe(
      'error_during_execution: API Error: 529 overloaded; retries exhausted',
    );
    expect(parseAgentOutput(JSON.stringify({ ...maxTurns, errors: [] })).failure).toBe(
      'error_max_turns',
    );
  });

  it('reads the result message out of --verbose arrays and stream-json lines', () => {
    const array = JSON.stringify([{ type: 'system' }, { type: 'assistant' }, success]);
    expect(parseAgentOutput(array).usage?.costUsd).toBe(0.1234);
    const stream = ['{"type":"system"}', 'progress text', JSON.stringify(success), ''].join('\n');
    expect(parseAgentOutput(stream).result).toBe('Done.');
  });

  it('treats anything else as plain text without usage', () => {
    expect(parseAgentOutput('all good\n')).toEqual({
      result: 'all good\n',
      isError: false,
      failure: '',
      structured: false,
    });
    expect(parseAgentOutput('{"not":"a result"}').usage).toBeUndefined();
  });

  it('ignores nonsense numbers', () => {
    const out = parseAgentOutput(
      JSON.stringify({ ...success, total_cost_usd: -1, usage: { input_tokens: 'x' } }),
    );
    expect(out.usage).toBeUndefined();
  });
});
