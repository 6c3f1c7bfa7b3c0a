/**
 * Some top-level fields of one JSON object, read as its text streams past without holding the
 * rest (docs/worker.md, "What the agent spent"): an answer through the API-key proxy may be of
 * any size and shaped by the agent (a file it made the API write, a page it had the API fetch),
 * and the worker's memory is not the agent's to fill, many answers at once.
 */
export interface JsonFields {
  push(text: string): void;
  /**
   * The named fields' values, parsed, once the text was one object and nothing but whitespace
   * after it; undefined otherwise (another value, cut short). A value longer than the limit
   * is left out.
   */
  end(): Record<string, unknown> | undefined;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
/** No key wanted is longer; a longer one is read no further. */
const MAX_KEY_CHARS = 64;

export function jsonFields(names: readonly string[], maxValueChars: number): JsonFields {
  let depth = 0;
  let started = false;
  let closed = false;
  let broken = false;
  let inString = false;
  let escaped = false;
  let expectKey = false;
  let readingKey = false;
  let key = '';
  let capturing: string | undefined;
  /** Past the colon of the wanted key being read. */
  let inValue = false;
  let value = '';
  const values = new Map<string, string>();

  const endValue = () => {
    if (capturing !== undefined && value.length <= maxValueChars) values.set(capturing, value);
    [capturing, inValue, value] = [undefined, false, ''];
  };
  const keyRead = () => {
    readingKey = false;
    const name = parsed(`"${key}"`);
    // Only a wanted key's value is kept.
    capturing = typeof name === 'string' && names.includes(name) ? name : undefined;
  };

  const step = (c: string) => {
    if (closed) {
      if (!WHITESPACE.has(c)) broken = true;
      return;
    }
    if (!started) {
      if (WHITESPACE.has(c)) return;
      if (c !== '{') broken = true;
      [started, depth, expectKey] = [true, 1, true];
      return;
    }
    const ends = !inString && depth === 1 && (c === ',' || c === '}');
    if (inValue && !ends && value.length <= maxValueChars) value += c;
    if (capturing !== undefined && !inValue && !inString && c === ':') inValue = true;
    if (inString) {
      if (readingKey && key.length <= MAX_KEY_CHARS && (escaped || c !== '"')) key += c;
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') {
        inString = false;
        if (readingKey) keyRead();
      }
      return;
    }
    if (c === '"') {
      inString = true;
      if (depth === 1 && expectKey) [readingKey, expectKey, key] = [true, false, ''];
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) {
        endValue();
        closed = true;
      }
    } else if (ends) {
      endValue();
      expectKey = true;
    }
  };

  return {
    push(text) {
      for (let i = 0; i < text.length && !broken; i++) step(text[i]!);
    },
    end() {
      if (!closed || broken) return undefined;
      return Object.fromEntries([...values].map(([name, text]) => [name, parsed(text)]));
    },
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
