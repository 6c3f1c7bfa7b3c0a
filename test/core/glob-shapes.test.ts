import { describe, expect, it } from 'vitest';
import { globMatches, globMatchesWithin, globProblem, literalPrefix } from '../../src/core/glob.js';
import { filesOutsideDeclaration } from '../../src/core/scheduler/overlap.js';
import { pathsMatching } from '../../src/core/scheduler/sorted-paths.js';
import { seededRandom as random } from '../github-double/seeded-random.js';

/**
 * `globMatches` picks a cheaper matcher by the glob's shape (a whole-path compare, a prefix, the
 * file's name alone, the automaton after the prefix). These cases hold every shape to the glob
 * grammar itself, written here as a regular expression that knows nothing of shapes or automata.
 */

/**
 * The grammar at the top of src/core/glob.ts: a trailing `/` is `/**`; a `**` segment is any
 * number of directories (their names may be empty, as in `a//b`), or anything when last; `*` a
 * run within a segment, `?` one code point but `/`, `{a,b}` either; every other character literal.
 * Backtracking, so only for the short globs and paths below.
 */
function reference(glob: string): RegExp {
  const segments = (glob.endsWith('/') ? `${glob}**` : glob).split('/');
  const source = segments.map((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '**') return last ? '[^]*' : '(?:[^/]*/)*';
    return segmentSource(segment) + (last ? '' : '/');
  });
  return new RegExp(`^(?:${source.join('')})$`, 'u');
}

function segmentSource(segment: string): string {
  let source = '';
  let inBraces = false;
  for (const ch of segment) {
    if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else if (ch === '{') [source, inBraces] = [`${source}(?:`, true];
    else if (ch === ',' && inBraces) source += '|';
    else if (ch === '}' && inBraces) [source, inBraces] = [`${source})`, false];
    else source += /[\\^$.*+?()[\]{}|/]/u.test(ch) ? `\\${ch}` : ch;
  }
  return source;
}

const GLOB_PIECES = [
  ...['**', '**/', '/**/', '/**', '*', '?', '/', '.', '..', ',', '}', '{', '[', ']'],
  ...['{a,b}', '{,x}', '{a,}', '{*,?}', '{é,😀b}', '{.,/}', 'a', 'b', 'x', 'ab', '.ts'],
  ...['é', '😀', '\ud83d'],
];
const SEGMENT_PIECES = GLOB_PIECES.filter((piece) => !piece.includes('/'));
const PATH_PIECES = [
  ...['a', 'b', 'x', 'ab', '.ts', '.', '..', '/', '//', ',', '}', '{', '[', ']', '*', '?'],
  ...['é', '😀', '\ud83d', '\ude00'],
];
const NAMES = ['a', 'b', 'x', 'é', '😀', '', '.', 'ab'];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)]!;
}

function pieces(next: () => number, from: readonly string[], most: number): string {
  const count = Math.floor(next() * (most + 1));
  return Array.from({ length: count }, () => pick(next, from)).join('');
}

/**
 * A valid glob: a literal prefix of a few directories, then any pieces, or `**\/` and one
 * segment (the shape matched on the file's name) or a few (matched on as many last segments),
 * or pieces ending in `/`.
 */
function validGlob(next: () => number): string {
  for (;;) {
    const prefix = pieces(
      next,
      NAMES.map((name) => `${name}/`),
      2,
    );
    const body = pick(next, [
      () => pieces(next, GLOB_PIECES, 6),
      () => '**/'.repeat(1 + Math.floor(next() * 2)) + pieces(next, SEGMENT_PIECES, 3),
      () =>
        '**/' +
        Array.from({ length: 2 + Math.floor(next() * 2) }, () =>
          pieces(next, SEGMENT_PIECES, 2),
        ).join('/'),
      () => `${pieces(next, GLOB_PIECES, 4)}/`,
    ])();
    const glob = prefix + body;
    if (globProblem(glob) === undefined) return glob;
  }
}

/** A path the glob may well match: each wildcard filled in at random, then perhaps spoiled. */
function instance(next: () => number, glob: string): string {
  const segments = glob.split('/');
  const filled = segments.map((segment, i) => {
    if (segment === '**') {
      const dirs = Array.from({ length: Math.floor(next() * 3) }, () => pick(next, NAMES));
      return (i === segments.length - 1 ? [...dirs, pick(next, NAMES)] : dirs).join('/');
    }
    return segment.replace(/\{([^}]*)\}|\*|\?/gu, (construct, options?: string) => {
      if (options !== undefined) return pick(next, options.split(','));
      const one = pick(next, NAMES.filter(Boolean));
      return construct === '?' ? one : one.repeat(Math.floor(next() * 3));
    });
  });
  let path = filled.join('/').replace(/\/{2,}/gu, () => (next() < 0.5 ? '/' : '//'));
  if (glob.endsWith('/')) path += pieces(next, PATH_PIECES, 3);
  else if (next() < 0.15) path += '/';
  if (next() < 0.3) {
    const at = Math.floor(next() * (path.length + 1));
    path = path.slice(0, at) + pick(next, PATH_PIECES) + path.slice(at + (next() < 0.5 ? 1 : 0));
  }
  return path;
}

/** Paths for `glob`: instances, random ones, and its literal prefix with and without its `/`. */
function pathsFor(next: () => number, glob: string): string[] {
  const prefix = literalPrefix(glob);
  return [
    ...Array.from({ length: 6 }, () => instance(next, glob)),
    ...Array.from({ length: 3 }, () => pieces(next, PATH_PIECES, 6) + (next() < 0.3 ? '/' : '')),
    prefix,
    prefix.replace(/\/$/u, ''),
    glob,
  ];
}

interface Case {
  glob: string;
  grammar: RegExp;
  paths: string[];
}

function cases(seed: number, count: number): Case[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    const glob = validGlob(next);
    return { glob, grammar: reference(glob), paths: pathsFor(next, glob) };
  });
}

const CASES = cases(0x5eed, 400);

describe('globMatches on every shape of glob', () => {
  it('answers as the grammar does on each glob and path', () => {
    const wrong: string[] = [];
    let matched = 0;
    for (const { glob, grammar, paths } of CASES) {
      for (const path of paths) {
        const answer = grammar.test(path);
        if (answer) matched++;
        if (globMatches(glob, path) !== answer) wrong.push(`${glob} against ${path}: ${answer}`);
        if (globMatchesWithin(glob, path, { left: 1e9 }) !== answer)
          wrong.push(`${glob} against ${path} within a budget: ${answer}`);
        if (globMatchesWithin(glob, path, { left: 0 }) !== undefined)
          wrong.push(`${glob} against ${path} with no budget: not undefined`);
      }
    }
    expect(wrong).toEqual([]);
    // The instances make both answers common, so neither side of a shape goes untried.
    const tried = CASES.reduce((sum, { paths }) => sum + paths.length, 0);
    expect(matched).toBeGreaterThan(tried / 5);
    expect(matched).toBeLessThan((tried * 4) / 5);
  });

  it('matches the paths of a sorted tree one by one', () => {
    for (const { glob, grammar, paths } of CASES) {
      const sorted = [...new Set(paths)].sort();
      const expected = sorted.filter((path) => grammar.test(path));
      const prefix = literalPrefix(glob);
      expect(pathsMatching(glob, prefix, sorted, { left: 1e9 }), glob).toEqual(expected);
      expect(pathsMatching(glob, prefix, sorted, { left: 1e9 }, true), glob).toEqual(
        expected.slice(0, 1),
      );
    }
  });

  it('finds the files outside a declaration one by one', () => {
    for (let i = 0; i + 2 < CASES.length; i += 3) {
      const group = CASES.slice(i, i + 3);
      const declared = group.map(({ glob }) => glob);
      const changed = group.flatMap(({ paths }) => paths);
      const outside = changed.filter((path) => !group.some(({ grammar }) => grammar.test(path)));
      expect(filesOutsideDeclaration(declared, changed, { left: 1e9 }), declared.join(' ')).toEqual(
        { files: outside, unchecked: 0 },
      );
    }
  });
});
