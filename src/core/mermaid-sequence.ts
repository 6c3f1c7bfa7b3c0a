/**
 * What a sequence diagram holds but does not draw (docs/security.md, "Text nobody saw"), as
 * Mermaid's lexer reads it (mermaid's diagrams/sequence/parser/sequenceDiagram.jison, which
 * ignores case): a participant given an alias (`participant X as Alice`, `actor X as Alice`)
 * is drawn as its alias, so its id is cut wherever it names the participant: in a statement,
 * before its text (a message's or a note's after `:`, an alias after `as`), but in one whose
 * words after its keyword are a drawn line (`loop`, `alt`, `title`, …). A name is taken to start
 * and end where a letter, digit or `_` does not go on (or after an arrow's `-x`), so the id is
 * also cut out of a longer name it starts or ends with a space or a dot (`X Y`, `X.Y`).
 */

import type { Cut } from './text-cuts.js';

const ALIAS = /\b(?:participant|actor)[^\S\n]+([^<>:\n,;@\s]+)\s+as\s/gi;
/** Statements whose words after the keyword are a line of text, drawn as written. */
const TEXT_STATEMENT =
  /^\s*(?:box|loop|rect|opt|alt|else|par_over|par|and|critical|option|break|title|autonumber)\b/i;
const AS = /\s+as\s/i;
const STATEMENT = /[^\n;]+/g;

/** The cuts of the ids of participants that have an alias, in `read` (comments blanked). */
export function sequenceCuts(read: string): Cut[] {
  const aliased = new Set([...read.matchAll(ALIAS)].map((match) => match[1]!));
  if (aliased.size === 0) return [];
  const names = nameFinder(aliased);
  const cuts: Cut[] = [];
  for (const { 0: statement, index } of read.matchAll(STATEMENT)) {
    if (TEXT_STATEMENT.test(statement)) continue;
    const textAt = Math.min(
      ...[statement.indexOf(':'), statement.search(AS)].map((at) => (at < 0 ? Infinity : at)),
    );
    const text = statement.slice(0, textAt);
    for (const { 0: word, index: at } of text.matchAll(names)) {
      // A word after an arrow's `-x` starts after the `x`.
      const afterCross = word.startsWith('x') && text[at - 1] === '-' && !aliased.has(word);
      const name = afterCross ? word.slice(1) : word;
      const start = index + at + word.length - name.length;
      if (aliased.has(name)) cuts.push({ start, end: start + name.length });
    }
  }
  return cuts;
}

/**
 * A pattern that finds each name that may be one of the ids: a whole word (checked against the
 * set, so that many ids cost no more than one), or an id that is not a word, by itself.
 */
function nameFinder(ids: ReadonlySet<string>): RegExp {
  const others = [...ids]
    .filter((id) => !/^\w+$/.test(id))
    .sort((a, b) => b.length - a.length)
    .map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // Tried first: an id that starts with a word would otherwise be found as that word.
  const other = others.length > 0 ? `(?<=^|[^\\w]|-x)(?:${others.join('|')})(?!\\w)|` : '';
  return new RegExp(`${other}\\w+`, 'g');
}
