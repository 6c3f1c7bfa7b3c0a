import { isObject, tryJson } from './json.js';
import type { Usage } from '../protocol/markers.js';

export interface AgentReport {
  /** The agent's final answer: Claude's `result`, or the raw stdout of any other agent. */
  result: string;
  usage?: Usage;
  /** Claude's own verdict (`is_error`), e.g. when it ran out of turns. */
  isError: boolean;
  /**
   * Why Claude's run ended in error: an error result (subtype error_max_turns,
   * error_during_execution, error_max_budget_usd…) has no `result`, its reasons are in
   * `errors`. Empty when there is none.
   */
  failure: string;
  /** True when `result` came from a JSON report, not raw output (then it is fit for a PR body). */
  structured: boolean;
}

/**
 * The fields of Claude Code's result message (`SDKResultMessage` of
 * `@anthropic-ai/claude-agent-sdk`, which its CLI prints for `-p --output-format json`) that
 * this parser reads. test/worker/agent-output-contract.test.ts holds every SDK result type to
 * them, so a field the SDK renames or retypes fails `npm run typecheck`.
 */
export interface ClaudeResultFields {
  type: 'result';
  subtype: string;
  is_error: boolean;
  total_cost_usd: number;
  usage: {
    input_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
    output_tokens: number;
  };
  modelUsage: Record<
    string,
    {
      inputTokens: number;
      cacheReadInputTokens: number;
      cacheCreationInputTokens: number;
      outputTokens: number;
    }
  >;
}
/** A successful run's result adds its final answer. */
export interface ClaudeSuccessFields extends ClaudeResultFields {
  subtype: 'success';
  result: string;
}
/** An error result has no answer, its reasons instead. */
export interface ClaudeErrorFields extends ClaudeResultFields {
  errors: string[];
}

/**
 * What the parser may find: the fields above by name, each unchecked until read, since the
 * text comes from whatever agent ran. `cost_usd` is the name older CLIs printed.
 */
type Untrusted<T> = { [K in keyof T]?: unknown };
type ResultObject = Untrusted<ClaudeSuccessFields & ClaudeErrorFields> & { cost_usd?: unknown };
type UsageObject = Untrusted<ClaudeResultFields['usage']>;
type ModelUsageObject = Untrusted<ClaudeResultFields['modelUsage'][string]>;

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

/**
 * Find Claude Code's result object. `--output-format json` prints one object; with
 * `--verbose` it prints an array of messages, and stream-json prints one per line.
 * Anything else is plain text, which is fine: no usage then.
 */
function findResultObject(stdout: string): ResultObject | undefined {
  const trimmed = stdout.trim();
  const candidates: unknown[] = [tryJson(trimmed)];
  const lines = trimmed.split('\n').filter((l) => l.trim().startsWith('{'));
  for (let i = lines.length - 1; i >= 0; i--) candidates.push(tryJson(lines[i]!));

  for (const c of candidates) {
    if (Array.isArray(c)) {
      const last = [...c].reverse().find((m) => isObject(m) && m.type === 'result');
      if (isObject(last)) return last;
    } else if (isObject(c) && (c.type === 'result' || 'result' in c || 'total_cost_usd' in c)) {
      return c;
    }
  }
  return undefined;
}

const sum = (values: (number | undefined)[]): number | undefined =>
  values.some((v) => v !== undefined)
    ? values.reduce<number>((a, v) => a + (v ?? 0), 0)
    : undefined;

/**
 * Tokens as Claude Code reports them. `usage` follows the Messages API, where
 * `input_tokens` leaves out the tokens read from and written to the prompt cache
 * (`cache_read_input_tokens`, `cache_creation_input_tokens`): they are input all the same.
 * `usage` covers the main loop only; `modelUsage` (per model, camelCase) adds subagents and
 * internal calls, so it is preferred when present.
 */
function tokensOf(obj: ResultObject): { input?: number; output?: number } {
  const models: ModelUsageObject[] = isObject(obj.modelUsage)
    ? Object.values(obj.modelUsage).filter(isObject)
    : [];
  if (models.length > 0) {
    return {
      input: sum(
        models.flatMap((m) => [
          num(m.inputTokens),
          num(m.cacheReadInputTokens),
          num(m.cacheCreationInputTokens),
        ]),
      ),
      output: sum(models.map((m) => num(m.outputTokens))),
    };
  }
  const u: UsageObject = isObject(obj.usage) ? obj.usage : {};
  return {
    input: sum([
      num(u.input_tokens),
      num(u.cache_read_input_tokens),
      num(u.cache_creation_input_tokens),
    ]),
    output: num(u.output_tokens),
  };
}

function failureOf(obj: ResultObject): string {
  const errors = Array.isArray(obj.errors)
    ? obj.errors.filter((e): e is string => typeof e === 'string' && e.trim() !== '')
    : [];
  const subtype = typeof obj.subtype === 'string' && obj.subtype !== 'success' ? obj.subtype : '';
  if (errors.length > 0) return `${subtype ? `${subtype}: ` : ''}${errors.join('; ')}`;
  return subtype;
}

export function parseAgentOutput(stdout: string): AgentReport {
  const obj = findResultObject(stdout);
  if (!obj) return { result: stdout, isError: false, failure: '', structured: false };

  const cost = num(obj.total_cost_usd) ?? num(obj.cost_usd);
  const { input, output } = tokensOf(obj);
  const usage =
    cost !== undefined || input !== undefined || output !== undefined
      ? { costUsd: cost ?? 0, inputTokens: input ?? 0, outputTokens: output ?? 0 }
      : undefined;
  const structured = typeof obj.result === 'string' || obj.type === 'result';
  return {
    result: typeof obj.result === 'string' ? obj.result : structured ? '' : stdout,
    usage,
    isError: obj.is_error === true,
    failure: failureOf(obj),
    structured,
  };
}
