/**
 * The globs of a task's `files:` (docs/tasks-block.md): paths relative to the repository's root,
 * `/`-separated, where `**` as a whole segment is any number of directories, `*` any run of
 * characters within one segment, `?` one character and `{a,b}` either alternative (not nested).
 * Every other character is literal, brackets included (`app/[id]/page.tsx` names that file).
 */

/** At most this many globs per task, each at most this long. */
export const MAX_GLOBS = 100;
export const MAX_GLOB_CHARS = 256;

const META = /[*?{]/;

/** Why `glob` is not a valid `files:` entry, or undefined when it is. */
export function globProblem(glob: string): string | undefined {
  if (glob.trim() === '') return 'is blank';
  if (glob.length > MAX_GLOB_CHARS) return `is longer than ${MAX_GLOB_CHARS} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(glob)) return 'contains a line break or control character';
  if (glob.includes('\\')) return 'contains `\\`; paths are separated by `/`';
  if (glob.startsWith('/')) return 'starts with `/`; paths are relative to the repository root';
  const segments = glob.split('/');
  if (segments.some((s) => s === '..' || s === '.'))
    return 'contains a `.` or `..` segment; paths are relative to the repository root';
  if (segments.slice(0, -1).some((s) => s === '')) return 'contains an empty segment (`//`)';
  let depth = 0;
  for (const ch of glob) {
    if (ch === '{') depth++;
    else if (ch === '}') depth--;
    if (depth < 0 || depth > 1) return 'has unbalanced or nested `{}`';
    if (depth === 1 && ch === '/') return 'has a `/` inside `{}`';
  }
  if (depth !== 0) return 'has unbalanced or nested `{}`';
  return undefined;
}

/**
 * The directory (ending in `/`) under which every path the glob matches lies, or the whole glob
 * when it has no wildcard (then it names one file, or with a trailing `/` one directory).
 * `src/login/**` → `src/login/`; `**\/*.ts` → `` (anywhere).
 */
export function literalPrefix(glob: string): string {
  const meta = glob.search(META);
  if (meta < 0) return glob;
  return glob.slice(0, glob.lastIndexOf('/', meta) + 1);
}

/** True when one of the two prefixes contains the other (`src/` and `src/login/x.ts`). */
export function prefixesNest(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short === long) return true;
  return long.startsWith(short) && (short === '' || short.endsWith('/'));
}

/**
 * How a glob is matched, the cheapest way its shape allows. Every path it matches starts with its
 * literal prefix (`literalPrefix`), which is compared at once; then:
 * - `exact`: a glob with no wildcard names one file;
 * - `under`: `P/**`, `P/` (or `**`) takes every path under `P/`, whatever follows;
 * - `lastSegments`: `P/**\/T`, `T` one or more segments without `**` (`*.ts`, `test/*.ts`), is
 *   `T` against as many last segments of the path (`**\/` may take any directories before them,
 *   so only those decide);
 * - `directory`: `P/**\/D/**` (or `P/**\/D/`), `D` one plain segment, takes every path with a
 *   directory `D` anywhere under `P/`: a search for `D/` at the start or `/D/` in the rest;
 * - `rest`: any other glob is its automaton over the path after `P/`.
 * Planners mostly write these shapes (`src/login/**`, `**\/*.ts`, `**\/test/**`); on a tree of
 * 100,000 files, matching whole paths took more steps than a task's claim may spend.
 */
type Matcher =
  | { kind: 'exact'; path: string }
  | { kind: 'under'; prefix: string }
  | { kind: 'directory'; prefix: string; atStart: string; inside: string }
  | { kind: 'lastSegments'; prefix: string; slashes: number; automaton: Automaton }
  | { kind: 'rest'; prefix: string; automaton: Automaton };

/**
 * Characters a native string search goes through per step: it runs a few times faster than the
 * automaton, whose step is one character.
 */
const SEARCHED_PER_STEP = 8;

const compiled = new Map<string, Matcher>();
const COMPILED_KEPT = 1_000;

/**
 * Whether `path` (a file's path in the repository) matches `glob`. Matched by running the glob's
 * automaton over the path once, in time proportional to the path's length times the glob's: a
 * backtracking regular expression takes exponential time on globs a planner may write, such as
 * `**\/**\/**\/…` or `*?*?*?…` against a path that fails near its end (each `*` can end anywhere),
 * and the coordinator matches the tasks' globs against the files of the tree in its own process
 * (docs/tasks-block.md), within a bound of steps (`globMatchesWithin`).
 */
export function globMatches(glob: string, path: string): boolean {
  return matches(matcherOf(glob), path, undefined)!;
}

/**
 * The steps matching may still take: one for the literal prefix (and, for a glob matched on the
 * last segments, one to find them), one per SEARCHED_PER_STEP characters a directory's search goes
 * through, one per character the automaton takes, and
 * UNCACHED_STEP_WEIGHT more per state it was in when it meets a character it has not taken from
 * those states before (that step is worked out then). A caller that matches what a plan says
 * against what a repository holds sets the bound (docs/lifecycle.md, "Overlapping files").
 */
export interface StepBudget {
  left: number;
}

/** `globMatches` within `budget`, or undefined when it runs out first (what was taken stays). */
export function globMatchesWithin(
  glob: string,
  path: string,
  budget: StepBudget,
): boolean | undefined {
  return matches(matcherOf(glob), path, budget);
}

function matches(
  matcher: Matcher,
  path: string,
  budget: StepBudget | undefined,
): boolean | undefined {
  if (budget && --budget.left < 0) return undefined;
  if (matcher.kind === 'exact') return path === matcher.path;
  if (!path.startsWith(matcher.prefix)) return false;
  if (matcher.kind === 'under') return true;
  if (matcher.kind === 'directory') {
    const steps = Math.ceil((path.length - matcher.prefix.length) / SEARCHED_PER_STEP);
    if (budget && (budget.left -= steps) < 0) return undefined;
    return (
      path.startsWith(matcher.atStart, matcher.prefix.length) ||
      path.indexOf(matcher.inside, matcher.prefix.length) >= 0
    );
  }
  if (matcher.kind === 'rest')
    return accepts(matcher.automaton, path, matcher.prefix.length, budget);
  if (budget && --budget.left < 0) return undefined;
  // The `/`s between the segments `T` takes must come after the prefix; the prefix ends in `/`
  // (or is empty), so the first of those segments never starts inside it.
  let end = path.length;
  for (let i = 0; i < matcher.slashes; i++) {
    end = slashBefore(path, end);
    if (end < matcher.prefix.length) return false;
  }
  return accepts(matcher.automaton, path, slashBefore(path, end) + 1, budget);
}

/** The last `/` before `end`, or -1 (lastIndexOf reads a negative start as 0). */
function slashBefore(path: string, end: number): number {
  return end > 0 ? path.lastIndexOf('/', end - 1) : -1;
}

function matcherOf(glob: string): Matcher {
  let matcher = compiled.get(glob);
  if (!matcher) {
    if (compiled.size >= COMPILED_KEPT) compiled.clear();
    matcher = compileMatcher(glob);
    compiled.set(glob, matcher);
  }
  return matcher;
}

/** `D/**` or `D/`, `D` a segment with no wildcard (META holds them all). */
const PLAIN_DIRECTORY = /^([^/*?{]*)\/(?:\*\*)?$/;

function compileMatcher(glob: string): Matcher {
  const prefix = literalPrefix(glob);
  if (prefix === glob) {
    return glob.endsWith('/') ? { kind: 'under', prefix } : { kind: 'exact', path: glob };
  }
  let rest = glob.slice(prefix.length);
  const anyDirectories = rest.startsWith('**/');
  while (rest.startsWith('**/')) rest = rest.slice(3);
  if (rest === '**' || rest === '') return { kind: 'under', prefix };
  if (anyDirectories && !rest.includes('**') && !rest.endsWith('/')) {
    const slashes = rest.split('/').length - 1;
    return { kind: 'lastSegments', prefix, slashes, automaton: compile(rest) };
  }
  const directory = anyDirectories ? PLAIN_DIRECTORY.exec(rest)?.[1] : undefined;
  if (directory !== undefined) {
    return { kind: 'directory', prefix, atStart: `${directory}/`, inside: `/${directory}/` };
  }
  return { kind: 'rest', prefix, automaton: compile(glob.slice(prefix.length)) };
}

/** One glob character or construct; a `**` segment, `/` included, is `dirs` (or `all` last). */
type Atom =
  | { kind: 'char'; ch: string }
  | { kind: 'one' | 'star' | 'dirs' | 'all' }
  | { kind: 'either'; options: Atom[][] };

/**
 * A state takes one character (`char`: that one; `inSegment`: any but `/`; `any`: any) and goes
 * on to `next`, or takes none and goes on to each of `next` (`split`); `match` ends the glob.
 */
type State =
  | { kind: 'char'; ch: string; next: number }
  | { kind: 'inSegment' | 'any'; next: number }
  | { kind: 'split'; next: number[] }
  | { kind: 'match' };

interface Automaton extends StateSets {
  start: StateSet;
}

/** The sets of states met so far, by their key, each with where each character led it. */
interface StateSets {
  states: State[];
  sets: Map<string, StateSet>;
  /** The states the kept sets hold in all. */
  kept: number;
}

/**
 * A set of states the automaton can be in at once; `next` caches its step on a character,
 * `ascii` on an ASCII character by its code (most paths' characters, and a quicker lookup).
 */
interface StateSet {
  members: number[];
  accepting: boolean;
  next: Map<string, StateSet>;
  ascii: (StateSet | undefined)[];
}

/**
 * The sets of one glob hold at most this many states in all: past it (only a glob with many
 * wildcards gets there), steps are worked out and not kept.
 */
const MEMBERS_KEPT = 16_384;

/**
 * A step worked out (each state's move, their closure, the set looked up) costs about as much
 * per state as this many cached steps; with it a budget's step takes a few nanoseconds whatever
 * the globs (measured on globs built to keep missing the cache, see `MATCH_STEPS`).
 */
const UNCACHED_STEP_WEIGHT = 32;

function compile(glob: string): Automaton {
  // A trailing `/` names a directory: everything under it.
  const text = glob.endsWith('/') ? `${glob}**` : glob;
  const segments = text.split('/');
  const atoms: Atom[] = [];
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '**') atoms.push({ kind: last ? 'all' : 'dirs' });
    else {
      atoms.push(...segmentAtoms(segment));
      if (!last) atoms.push({ kind: 'char', ch: '/' });
    }
  });
  const states: State[] = [{ kind: 'match' }];
  const first = build(atoms, 0, states);
  const sets: StateSets = { states, sets: new Map(), kept: 0 };
  return Object.assign(sets, { start: stateSet(sets, closure(states, [first])) });
}

function segmentAtoms(segment: string): Atom[] {
  const atoms: Atom[] = [];
  let options: Atom[][] | undefined;
  for (const ch of segment) {
    const into = options ? options[options.length - 1]! : atoms;
    if (ch === '*') into.push({ kind: 'star' });
    else if (ch === '?') into.push({ kind: 'one' });
    else if (ch === '{' && !options) options = [[]];
    else if (ch === ',' && options) options.push([]);
    else if (ch === '}' && options) {
      atoms.push({ kind: 'either', options });
      options = undefined;
    } else into.push({ kind: 'char', ch });
  }
  // An unclosed `{` (globProblem refuses it) takes the rest of the segment as its alternatives.
  if (options) atoms.push({ kind: 'either', options });
  return atoms;
}

/** The state that matches `atoms` and then goes on to `next` (states are added to `states`). */
function build(atoms: readonly Atom[], next: number, states: State[]): number {
  let at = next;
  for (let i = atoms.length - 1; i >= 0; i--) at = buildAtom(atoms[i]!, at, states);
  return at;
}

function buildAtom(atom: Atom, next: number, states: State[]): number {
  const add = (state: State) => states.push(state) - 1;
  switch (atom.kind) {
    case 'char':
      return add({ kind: 'char', ch: atom.ch, next });
    case 'one':
      return add({ kind: 'inSegment', next });
    case 'either':
      return add({ kind: 'split', next: atom.options.map((o) => build(o, next, states)) });
    case 'star':
    case 'all':
    case 'dirs': {
      // A loop: take one more (a character, or for `dirs` a directory's name and its `/`), or go on.
      const loop: State = { kind: 'split', next: [] };
      const at = add(loop);
      const step =
        atom.kind === 'dirs'
          ? buildAtom({ kind: 'star' }, add({ kind: 'char', ch: '/', next: at }), states)
          : add({ kind: atom.kind === 'star' ? 'inSegment' : 'any', next: at });
      loop.next = [step, next];
      return at;
    }
  }
}

/**
 * Runs the automaton on every state it can be in at once, one character (code point) at a time;
 * each set's step on a character is worked out once (a lazily built DFA), an ASCII character's
 * looked up by its code. Starts at `from`; undefined when `budget` runs out before the path does.
 */
function accepts(
  automaton: Automaton,
  path: string,
  from: number,
  budget: StepBudget | undefined,
): boolean | undefined {
  let current = automaton.start;
  for (let i = from; i < path.length;) {
    const unit = path.charCodeAt(i);
    const ascii = unit < 128;
    const ch = ascii ? '' : String.fromCodePoint(path.codePointAt(i)!);
    i += ascii ? 1 : ch.length;
    let next = ascii ? current.ascii[unit] : current.next.get(ch);
    const cost = next ? 1 : 1 + UNCACHED_STEP_WEIGHT * current.members.length;
    if (budget && (budget.left -= cost) < 0) return undefined;
    if (!next) {
      const taken = ascii ? String.fromCharCode(unit) : ch;
      next = stateSet(automaton, step(automaton.states, current.members, taken));
      if (automaton.kept < MEMBERS_KEPT) {
        if (ascii) current.ascii[unit] = next;
        else current.next.set(ch, next);
      }
    }
    if (next.members.length === 0) return false;
    current = next;
  }
  return current.accepting;
}

function stateSet(automaton: StateSets, members: number[]): StateSet {
  const key = members.join(',');
  const known = automaton.sets.get(key);
  if (known) return known;
  const set = {
    members,
    accepting: members.some((at) => automaton.states[at]!.kind === 'match'),
    next: new Map<string, StateSet>(),
    ascii: [],
  };
  if (automaton.kept < MEMBERS_KEPT) {
    automaton.sets.set(key, set);
    automaton.kept += members.length + 1;
  }
  return set;
}

/** The states reached from `members` by taking `ch`. */
function step(states: readonly State[], members: readonly number[], ch: string): number[] {
  const taken: number[] = [];
  for (const at of members) {
    const state = states[at]!;
    if (
      (state.kind === 'char' && state.ch === ch) ||
      (state.kind === 'inSegment' && ch !== '/') ||
      state.kind === 'any'
    )
      taken.push(state.next);
  }
  return closure(states, taken);
}

/** The states that take a character (or `match`) reachable from `from` through splits, sorted. */
function closure(states: readonly State[], from: readonly number[]): number[] {
  const seen = new Set<number>();
  const stack = [...from];
  while (stack.length > 0) {
    const at = stack.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    const state = states[at]!;
    if (state.kind === 'split') stack.push(...state.next);
  }
  return [...seen].filter((at) => states[at]!.kind !== 'split').sort((a, b) => a - b);
}
