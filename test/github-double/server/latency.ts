import { seededRandom } from '../seeded-random.js';

/**
 * How long the double takes to answer an API call: uniformly random in [minMs, maxMs] per
 * request, from a seeded PRNG so a run can be repeated. Real GitHub answers in tens to hundreds
 * of milliseconds; off (at once) unless a benchmark asks for it.
 */
export interface AnswerLatency {
  minMs: number;
  maxMs: number;
  seed: number;
}

/** Draws one request's answer time after another. */
export function latencySampler(latency: AnswerLatency): () => number {
  if (!(latency.minMs >= 0 && latency.maxMs >= latency.minMs))
    throw new Error(`answer latency: expected 0 <= minMs <= maxMs, got ${JSON.stringify(latency)}`);
  const random = seededRandom(latency.seed);
  return () => latency.minMs + random() * (latency.maxMs - latency.minMs);
}
