/** Server-sent events as the Messages API streams them. */
function sse(events: readonly { type: string }[]): string {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

/**
 * A streamed answer on Sonnet 5 ($2 input, $0.20 cache reads, $10 output per million tokens):
 * 2,000 input tokens, 50,000 read from the cache, 800 out.
 */
export const SONNET_ANSWER = sse([
  {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-5',
      content: [],
      usage: { input_tokens: 2000, cache_read_input_tokens: 50_000, output_tokens: 1 },
    },
  },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi ✓' } },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 800 } },
  { type: 'message_stop' },
] as { type: string }[]);

/** What SONNET_ANSWER costs. */
export const SONNET_ANSWER_COST = (2000 * 2 + 50_000 * 0.2 + 800 * 10) / 1e6;

/**
 * An agent's script (CommonJS) that runs `before` (script text), calls the API `CALLS` times
 * through the worker's key proxy, then runs `then`; it reports what it likes itself.
 */
export function apiCallingAgent(then: string, before = ''): string {
  return String.raw`
const http = require('node:http');
${before}
const base = new URL(process.env.ANTHROPIC_BASE_URL);
const call = () => new Promise((resolve, reject) => {
  const headers = { 'x-api-key': process.env.ANTHROPIC_API_KEY, 'content-type': 'application/json' };
  http.request({ host: base.hostname, port: base.port, method: 'POST', path: '/v1/messages', headers }, (res) => {
    res.resume();
    res.on('end', resolve);
  }).on('error', reject).end(JSON.stringify({ model: 'claude-sonnet-5', stream: true }));
});
(async () => {
  for (let i = 0; i < Number(process.env.CALLS); i++) await call();
${then}
})();
`;
}
