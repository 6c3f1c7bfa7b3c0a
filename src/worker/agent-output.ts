export interface Usage {
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
}

export interface AgentReport {
  /** The agent's final answer: Claude's `result`, or the raw stdout of any other agent. */
  result: string;
  usage?: Usage;
  /** Claude's own verdict (`is_error`), e.g. when it ran out of turns. */
  isError: boolean;
  /** True when `result` came from a JSON report, not raw output (then it is fit for a PR body). */
  structured: boolean;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Find Claude Code's result object. `--output-format json` prints one object; with
 * `--verbose` it prints an array of messages, and stream-json prints one per line.
 * Anything else is plain text, which is fine: no usage then.
 */
function findResultObject(stdout: string): Json | undefined {
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

export function parseAgentOutput(stdout: string): AgentReport {
  const obj = findResultObject(stdout);
  if (!obj) return { result: stdout, isError: false, structured: false };

  const usageObj = isObject(obj.usage) ? obj.usage : {};
  const cost = num(obj.total_cost_usd) ?? num(obj.cost_usd);
  const input = num(usageObj.input_tokens);
  const output = num(usageObj.output_tokens);
  const usage =
    cost !== undefined || input !== undefined || output !== undefined
      ? { costUsd: cost ?? 0, inputTokens: input ?? 0, outputTokens: output ?? 0 }
      : undefined;
  return {
    result: typeof obj.result === 'string' ? obj.result : stdout,
    usage,
    isError: obj.is_error === true,
    structured: typeof obj.result === 'string',
  };
}
