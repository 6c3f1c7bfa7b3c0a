import type { DiffSide } from './model.js';

// A file's part of a pull request's diff, as unified hunks with three lines of context: what
// GitHub's line comments are placed on (`line` + `side`) and quote (`diff_hunk`).

interface DiffLine {
  kind: ' ' | '-' | '+';
  text: string;
  // Line numbers in the old (LEFT) and new (RIGHT) file; null on the side the line is not on.
  old: number | null;
  new: number | null;
}

interface Hunk {
  header: string;
  lines: DiffLine[];
}

const CONTEXT = 3;

function split(text: string | undefined): string[] {
  if (text === undefined || text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

// Longest common subsequence on lines: files in tests are small.
function editScript(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] =
        a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ kind: ' ', text: a[i]!, old: i + 1, new: j + 1 });
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      // Removals before additions, as `diff -u` orders a changed line.
      out.push({ kind: '-', text: a[i]!, old: i + 1, new: null });
      i++;
    } else {
      out.push({ kind: '+', text: b[j]!, old: null, new: j + 1 });
      j++;
    }
  }
  return out;
}

function hunks(script: DiffLine[]): Hunk[] {
  const changed = script.map((l, i) => (l.kind === ' ' ? -1 : i)).filter((i) => i >= 0);
  const ranges: [number, number][] = [];
  for (const i of changed) {
    const lo = Math.max(0, i - CONTEXT);
    const hi = Math.min(script.length - 1, i + CONTEXT);
    const last = ranges.at(-1);
    if (last && lo <= last[1] + 1) last[1] = hi;
    else ranges.push([lo, hi]);
  }
  return ranges.map(([lo, hi]) => {
    const lines = script.slice(lo, hi + 1);
    const olds = lines.filter((l) => l.old !== null);
    const news = lines.filter((l) => l.new !== null);
    // An empty side starts at the line before the hunk, as `diff -u` writes it (0 for a new file).
    const oldStart = olds[0]?.old ?? script.slice(0, lo).findLast((l) => l.old !== null)?.old ?? 0;
    const newStart = news[0]?.new ?? script.slice(0, lo).findLast((l) => l.new !== null)?.new ?? 0;
    return {
      header: `@@ -${oldStart},${olds.length} +${newStart},${news.length} @@`,
      lines,
    };
  });
}

export interface FileDiff {
  hunks: Hunk[];
}

export function fileDiff(before: string | undefined, after: string | undefined): FileDiff {
  return { hunks: hunks(editScript(split(before), split(after))) };
}

function lineOn(l: DiffLine, side: DiffSide): number | null {
  return side === 'RIGHT' ? l.new : l.old;
}

export interface Placement {
  diffHunk: string;
  // GitHub's deprecated `position`: lines below the file's first hunk header, later headers counted.
  position: number;
}

/**
 * Where a comment on `line` (and from `startLine`) of `side` sits in the diff, or why GitHub
 * refuses it: both ends must be lines of the same hunk, on that side.
 */
export function place(
  diff: FileDiff,
  side: DiffSide,
  line: number,
  startLine: number | null,
  startSide: DiffSide | null,
): Placement | null {
  let position = 0;
  for (const [h, hunk] of diff.hunks.entries()) {
    if (h > 0) position += 1;
    const at = hunk.lines.findIndex(
      (l) => l.kind !== (side === 'RIGHT' ? '-' : '+') && lineOn(l, side) === line,
    );
    if (at < 0) {
      position += hunk.lines.length;
      continue;
    }
    if (startLine !== null) {
      const from = startSide ?? side;
      const start = hunk.lines.findIndex(
        (l) => l.kind !== (from === 'RIGHT' ? '-' : '+') && lineOn(l, from) === startLine,
      );
      if (start < 0 || start > at) return null;
    }
    const quoted = hunk.lines.slice(0, at + 1).map((l) => `${l.kind}${l.text}`);
    return { diffHunk: [hunk.header, ...quoted].join('\n'), position: position + at + 1 };
  }
  return null;
}

/** Whether lines `from..to` of a file read the same in `before` and `after`. */
export function sameLines(
  before: string | undefined,
  after: string | undefined,
  from: number,
  to: number,
): boolean {
  if (after === undefined) return false;
  const a = split(before);
  const b = split(after);
  for (let n = from; n <= to; n++) if (a[n - 1] !== b[n - 1]) return false;
  return true;
}
