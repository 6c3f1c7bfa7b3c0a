import { validateHeaderName, validateHeaderValue } from 'node:http';

/**
 * `ANTHROPIC_CUSTOM_HEADERS` read as the pinned Claude Code reads it (2.1.332, its `fH`): a header
 * a line (`\n` or `\r\n`), the name before the line's first colon and the value after it, both
 * trimmed; a line without a colon is skipped; a later line overrides an earlier one of its name.
 * A line Claude Code refuses to run with (an empty name, a name or value no HTTP header can hold)
 * is an error here too, said at start: the proxy's http.request would throw on it mid-run.
 */
export interface CustomHeaders {
  /** By lowercase name. */
  headers: Map<string, string>;
  /** The numbers (from 1) of the lines Claude Code skips: not blank, but without a colon. */
  skipped: number[];
}

export function parseCustomHeaders(text: string): CustomHeaders {
  const headers = new Map<string, string>();
  const skipped: number[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const number = index + 1;
    const colon = line.indexOf(':');
    if (colon < 0) {
      if (line.trim()) skipped.push(number);
      return;
    }
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    // The line itself may be a secret pasted without its name: the message never quotes it.
    const where = `ANTHROPIC_CUSTOM_HEADERS, line ${number}`;
    if (!name) throw new Error(`${where}: no header name before the colon`);
    try {
      validateHeaderName(name);
    } catch {
      throw new Error(`${where}: the name is not one an HTTP header may have`);
    }
    try {
      validateHeaderValue(name, value);
    } catch {
      throw new Error(`${where} (${name}): the value holds a character no HTTP header may`);
    }
    headers.set(name.toLowerCase(), value);
  });
  return { headers, skipped };
}
