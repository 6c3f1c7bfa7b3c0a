import { describe, expect, it } from 'vitest';
import { jsonFields } from '../../src/worker/json-fields.js';

/** What the reader makes of `text`, given in pieces of `size` characters. */
function read(text: string, size = text.length, names = ['usage', 'model'], max = 1000) {
  const fields = jsonFields(names, max);
  for (let i = 0; i < text.length; i += size) fields.push(text.slice(i, i + size));
  return fields.end();
}

const USAGE = { input_tokens: 10, output_tokens: 2, cache_creation: { ephemeral_5m: 1 } };

/**
 * The top-level fields of a JSON object, read as it streams (src/worker/json-fields.ts), as
 * `JSON.parse` reads them: the worker's usage meter holds no more of an answer than these.
 */
describe('the top-level fields of a streamed JSON object', () => {
  const message = JSON.stringify({
    id: 'msg_1',
    model: 'claude-sonnet-5',
    content: [{ type: 'text', text: 'a "usage": {"output_tokens": 0}, } ] \\ ✓' }],
    usage: USAGE,
  });

  it.each([1, 3, 7, message.length])('reads them in pieces of %i characters', (size) => {
    expect(read(message, size)).toEqual({ model: 'claude-sonnet-5', usage: USAGE });
  });

  it('reads them as JSON.parse would: spaced, escaped keys, the last of a name', () => {
    const text = ' {\n "\\u0075sage" :\t{"output_tokens": 1} , "model":"a", "model" : "b" }\n';
    expect(read(text, 2)).toEqual(JSON.parse(text) as unknown);
  });

  it('reads no nested field of that name', () => {
    const text = JSON.stringify({ content: [{ usage: USAGE }], meta: { model: 'x' } });
    expect(read(text)).toEqual({});
  });

  it.each([
    ['another value', '[{"usage": {}}]'],
    ['an object cut short', '{"usage": {"output_tokens": 1}, "content": ['],
    ['more after the object', '{"usage": {}} {"usage": {}}'],
    ['text that is no JSON', '<h1>Overloaded</h1>'],
  ])('reads nothing from %s', (_, text) => {
    expect(read(text)).toBeUndefined();
  });

  it('leaves out a value over its limit, and holds no more of it', () => {
    const text = JSON.stringify({ usage: { pad: 'x'.repeat(50) }, model: 'm' });
    expect(read(text, 5, ['usage', 'model'], 20)).toEqual({ model: 'm' });
  });
});
