import type {
  SDKResultError,
  SDKResultMessage,
  SDKResultSuccess,
} from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  parseAgentOutput,
  type ClaudeErrorFields,
  type ClaudeSuccessFields,
} from '../../src/worker/agent-output.js';

/**
 * The worker's parser of Claude Code's `-p --output-format json` against the result types of
 * `@anthropic-ai/claude-agent-sdk`, pinned (package.json) at the version published with the
 * CLI the template installs (its `claudeCodeVersion`; test/worker/agent-cli.test.ts holds the
 * two pins together). These are checked by `npm run typecheck`: when the SDK renames or
 * retypes a field the parser reads, the type assertions and the `satisfies` below fail.
 */
describe("the parser against the agent SDK's result types", () => {
  it('reads only fields every SDK result message has, with the types it expects', () => {
    expectTypeOf<SDKResultSuccess>().toExtend<ClaudeSuccessFields>();
    expectTypeOf<SDKResultError>().toExtend<ClaudeErrorFields>();
    expectTypeOf<SDKResultMessage['subtype']>().toExtend<string>();
  });

  const usage = {
    input_tokens: 10,
    cache_creation_input_tokens: 300,
    cache_read_input_tokens: 500,
    output_tokens: 20,
    output_tokens_details: { thinking_tokens: 0 },
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 300 },
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: 'standard',
    inference_geo: '',
    iterations: [],
    speed: 'standard',
    fallback_credit: null,
  } satisfies SDKResultMessage['usage'];

  const modelUsage = {
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
  } satisfies SDKResultMessage['modelUsage'];

  const success = {
    type: 'result',
    subtype: 'success',
    duration_ms: 48211,
    duration_api_ms: 40110,
    is_error: false,
    num_turns: 12,
    result: 'Done: the login endpoint and its tests.',
    stop_reason: 'end_turn',
    total_cost_usd: 0.1234,
    usage,
    modelUsage: {},
    permission_denials: [],
    uuid: '6bb5f50b-2612-41b2-9f46-d8c3bc6e44f4',
    session_id: '3f0e7a52-5d7b-4c1e-9d4e-0c2f6f8b1a11',
  } satisfies SDKResultSuccess;

  const maxTurns = {
    type: 'result',
    subtype: 'error_max_turns',
    duration_ms: 9000,
    duration_api_ms: 8000,
    is_error: true,
    num_turns: 3,
    stop_reason: null,
    total_cost_usd: 0.05,
    usage,
    modelUsage,
    permission_denials: [],
    errors: ['Reached maximum number of turns (3)'],
    uuid: 'b00c63ad-8e53-4d41-a160-c5fcdc47e9ee',
    session_id: '3f0e7a52-5d7b-4c1e-9d4e-0c2f6f8b1a11',
  } satisfies SDKResultError;

  it('reads a success result typed as the SDK declares it', () => {
    expect(parseAgentOutput(JSON.stringify(success))).toEqual({
      result: success.result,
      usage: { costUsd: 0.1234, inputTokens: 810, outputTokens: 20 },
      isError: false,
      failure: '',
      structured: true,
    });
  });

  it('reads an error result typed as the SDK declares it, modelUsage first', () => {
    expect(parseAgentOutput(JSON.stringify(maxTurns))).toEqual({
      result: '',
      usage: { costUsd: 0.05, inputTokens: 1300, outputTokens: 50 },
      isError: true,
      failure: 'error_max_turns: Reached maximum number of turns (3)',
      structured: true,
    });
  });
});
