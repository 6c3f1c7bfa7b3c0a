/** A JSON object, as untrusted text parsed to it may hold anything. */
export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parsed value, or undefined for text that is no JSON (an agent's or the API's). */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
