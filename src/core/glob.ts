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

const compiled = new Map<string, RegExp>();
const COMPILED_KEPT = 10_000;

/** Whether `path` (a file's path in the repository) matches `glob`. */
export function globMatches(glob: string, path: string): boolean {
  let re = compiled.get(glob);
  if (!re) {
    if (compiled.size >= COMPILED_KEPT) compiled.clear();
    re = new RegExp(`^${globSource(glob)}$`, 'u');
    compiled.set(glob, re);
  }
  return re.test(path);
}

function globSource(glob: string): string {
  // A trailing `/` names a directory: everything under it.
  const text = glob.endsWith('/') ? `${glob}**` : glob;
  const segments = text.split('/');
  let out = '';
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '**') {
      out += last ? '.*' : '(?:[^/]*/)*';
      return;
    }
    out += segmentSource(segment) + (last ? '' : '/');
  });
  return out;
}

function segmentSource(segment: string): string {
  let out = '';
  let inBrace = false;
  for (const ch of segment) {
    if (ch === '*') out += '[^/]*';
    else if (ch === '?') out += '[^/]';
    else if (ch === '{') {
      out += '(?:';
      inBrace = true;
    } else if (ch === '}' && inBrace) {
      out += ')';
      inBrace = false;
    } else if (ch === ',' && inBrace) out += '|';
    else out += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}
