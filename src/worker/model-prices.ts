/**
 * What a Messages API response cost, priced by the worker from the tokens it counted
 * (docs/worker.md, "What the agent spent"): the agent's own figure is its word, this is not.
 */

/** USD per million tokens, as Anthropic's pricing page lists them. */
export interface Rates {
  input: number;
  /** Prompt-cache writes for five minutes (1.25 × input) and for an hour (2 × input). */
  cacheWrite5m: number;
  cacheWrite1h: number;
  /** Cache hits and refreshes. */
  cacheRead: number;
  output: number;
}

/** The tokens of one response, as its `usage` splits them. */
export interface ResponseTokens {
  input: number;
  /** Cache writes the response says were for five minutes; the rest were for an hour. */
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
  output: number;
  webSearches: number;
}

interface ModelPrice {
  rates: Rates;
  /** Rates for a response whose prompt (input, cache reads and writes) is over `tokens`. */
  longPrompt?: { tokens: number; rates: Rates };
}

const rates = (
  input: number,
  cacheWrite5m: number,
  cacheWrite1h: number,
  cacheRead: number,
  output: number,
): Rates => ({ input, cacheWrite5m, cacheWrite1h, cacheRead, output });

const FABLE_5_1 = { rates: rates(10, 12.5, 20, 0.25, 50) };
const FABLE_5 = { rates: rates(10, 12.5, 20, 1, 50) };
const OPUS_5 = { rates: rates(5, 6.25, 10, 0.5, 25) };
const OPUS_4 = { rates: rates(15, 18.75, 30, 1.5, 75) };
const SONNET_5 = { rates: rates(2, 2.5, 4, 0.2, 10) };
const SONNET_4_6 = { rates: rates(3, 3.75, 6, 0.3, 15) };
// Sonnet 4.5 and 4 bill a prompt over 200K tokens (their 1M context window) at long-context rates.
const SONNET_4 = {
  rates: SONNET_4_6.rates,
  longPrompt: { tokens: 200_000, rates: rates(6, 7.5, 12, 0.6, 22.5) },
};

/**
 * The current Claude models by their API ids (a dated id, `claude-opus-4-5-20251101`, is its
 * model's), from platform.claude.com/docs/en/about-claude/pricing. Where sources disagreed (the
 * Haiku 5.5 long-prompt tier), the higher rates are kept: an unpriced token is one the budget
 * misses.
 */
const PRICES: Record<string, ModelPrice> = {
  'claude-fable-5-1': FABLE_5_1,
  'claude-mythos-5-1': FABLE_5_1,
  'claude-fable-5': FABLE_5,
  'claude-mythos-5': FABLE_5,
  'claude-opus-5-5': { rates: rates(4, 5, 8, 0.2, 20) },
  'claude-opus-5': OPUS_5,
  'claude-opus-4-8': OPUS_5,
  'claude-opus-4-7': OPUS_5,
  'claude-opus-4-6': OPUS_5,
  'claude-opus-4-5': OPUS_5,
  'claude-opus-4-1': OPUS_4,
  'claude-opus-4': OPUS_4,
  'claude-opus-4-0': OPUS_4,
  'claude-sonnet-5-5': SONNET_5,
  'claude-sonnet-5': SONNET_5,
  'claude-sonnet-4-6': SONNET_4_6,
  'claude-sonnet-4-5': SONNET_4,
  'claude-sonnet-4': SONNET_4,
  'claude-sonnet-4-0': SONNET_4,
  'claude-haiku-5-5': {
    rates: rates(0.1, 0.125, 0.2, 0.01, 0.5),
    longPrompt: { tokens: 100_000, rates: rates(0.5, 0.625, 1, 0.05, 2.5) },
  },
  'claude-haiku-4-5': { rates: rates(1, 1.25, 2, 0.1, 5) },
};

const RATE_NAMES = ['input', 'cacheWrite5m', 'cacheWrite1h', 'cacheRead', 'output'] as const;

/**
 * A model not in the table pays the table's highest rate of each kind, so an agent cannot pick
 * an id the table lacks to look cheap.
 */
export const UNKNOWN_MODEL_RATES: Rates = Object.fromEntries(
  RATE_NAMES.map((name) => [
    name,
    Math.max(
      ...Object.values(PRICES).flatMap((p) => [p.rates[name], p.longPrompt?.rates[name] ?? 0]),
    ),
  ]),
) as unknown as Rates;

/**
 * Fast mode (`usage.speed: "fast"`) bills a multiple of the standard rates: six times is the
 * highest Anthropic has published for prompts up to 200K tokens (Opus 4.6).
 */
const FAST_MODE_MULTIPLIER = 6;

/** Server-side web search: $10 per 1,000 searches. */
const WEB_SEARCH_USD = 0.01;

/** The table's entry for a model id: as listed, or dated (`-20251101`), or with a `[1m]` tag. */
function priceOf(model: string | undefined): ModelPrice | undefined {
  if (model === undefined) return undefined;
  const id = model.replace(/\[[^\]]*\]$/, '').replace(/-\d{8}$/, '');
  return Object.hasOwn(PRICES, id) ? PRICES[id] : undefined;
}

export function ratesFor(model: string | undefined, promptTokens: number): Rates {
  const price = priceOf(model);
  if (!price) return UNKNOWN_MODEL_RATES;
  return price.longPrompt && promptTokens > price.longPrompt.tokens
    ? price.longPrompt.rates
    : price.rates;
}

export function costUsd(model: string | undefined, tokens: ResponseTokens, fast: boolean): number {
  const prompt = tokens.input + tokens.cacheWrite5m + tokens.cacheWrite1h + tokens.cacheRead;
  const r = ratesFor(model, prompt);
  const perMillion =
    tokens.input * r.input +
    tokens.cacheWrite5m * r.cacheWrite5m +
    tokens.cacheWrite1h * r.cacheWrite1h +
    tokens.cacheRead * r.cacheRead +
    tokens.output * r.output;
  return (
    (perMillion / 1e6) * (fast ? FAST_MODE_MULTIPLIER : 1) + tokens.webSearches * WEB_SEARCH_USD
  );
}
