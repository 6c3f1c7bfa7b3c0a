// Thin helpers over the `yaml` AST. We walk nodes instead of calling toJS() so every
// error can point at a line and column, and so aliases never expand.
import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { LineCounter } from 'yaml';
import { code } from './quote.js';

export interface Position {
  line: number;
  column: number;
}

export class Locator {
  constructor(
    private readonly lineCounter: LineCounter,
    private readonly lineOffset: number,
    private readonly columnOffset: number,
  ) {}

  at(offset: number): Position {
    const { line, col } = this.lineCounter.linePos(offset);
    return { line: Math.max(line, 1) + this.lineOffset, column: col + this.columnOffset };
  }

  of(node: unknown): Position | undefined {
    const range = (node as { range?: readonly number[] | null } | null | undefined)?.range;
    const start = range?.[0];
    return typeof start === 'number' ? this.at(start) : undefined;
  }
}

export type TextValue =
  { kind: 'text'; text: string } | { kind: 'null' } | { kind: 'other'; description: string };

/**
 * A scalar as text. Unquoted numbers and booleans keep their source spelling, so
 * `id: 001` is the id "001" and `title: true` the title "true", as the author wrote them.
 */
export function readText(node: unknown): TextValue {
  if (node === null || node === undefined) return { kind: 'null' };
  if (isScalar(node)) {
    const value = node.value;
    if (typeof value === 'string') return { kind: 'text', text: value };
    if (value === null || value === undefined) return { kind: 'null' };
    if (typeof node.source === 'string') return { kind: 'text', text: node.source };
    return { kind: 'text', text: String(value) };
  }
  return { kind: 'other', description: describe(node) };
}

/** "a list", "the number `7`", ... for messages. */
export function describe(node: unknown): string {
  if (node === null || node === undefined) return 'nothing';
  if (isAlias(node)) return `the alias ${code('*' + String(node.source))}`;
  if (isSeq(node)) return 'a list';
  if (isMap(node)) return 'a mapping';
  if (isScalar(node)) {
    const value = node.value;
    if (value === null || value === undefined) return 'null';
    const shown = code(typeof node.source === 'string' ? node.source : String(value));
    if (typeof value === 'string') return `the string ${shown}`;
    if (typeof value === 'number') return `the number ${shown}`;
    if (typeof value === 'boolean') return `the boolean ${shown}`;
    return shown;
  }
  return 'an unsupported value';
}

/** Key text for messages and paths; '' for an empty or complex key. */
export function keyText(key: unknown): string {
  const text = readText(key);
  return text.kind === 'text' ? text.text : '';
}

/** `.deps` for plain keys, `["we ird"]` for anything else, so paths stay unambiguous. */
export function keySegment(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(key)
    ? `.${key}`
    : `[${JSON.stringify(key.length > 64 ? key.slice(0, 64) + '…' : key)}]`;
}
