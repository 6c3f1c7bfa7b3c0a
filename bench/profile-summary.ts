// npx tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
// Self time by function and by package, and inclusive time of this project's own functions.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const repoRoot = new URL('..', import.meta.url).href;

function where(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  // Relative to this checkout, wherever it is (a worktree is not under /main/).
  if (url.startsWith(repoRoot)) return url.slice(repoRoot.length);
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
}

export function summarize(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const fnSelf = new Map<string, number>();
  const pkgSelf = new Map<string, number>();
  const ownInclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const pkg = where(node.callFrame.url);
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${pkg}:${node.callFrame.lineNumber + 1}`;
    fnSelf.set(fn, (fnSelf.get(fn) ?? 0) + us);
    pkgSelf.set(pkg, (pkgSelf.get(pkg) ?? 0) + us);
    // Inclusive time of project functions (src/, bench/, test/): walk up the stack once per frame.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!.callFrame;
      const p = where(frame.url);
      if (!/^(src|bench|test|db)\//.test(p)) continue;
      const key = `${frame.functionName || '(anonymous)'} ${p}:${frame.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      ownInclusive.set(key, (ownInclusive.get(key) ?? 0) + us);
    }
  }
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  const lines = [`sampled ${(total / 1e6).toFixed(1)} s of CPU`];
  const section = (title: string, m: Map<string, number>, n: number) => {
    lines.push(`-- ${title}`);
    for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n))
      lines.push(`${pct(us)}  ${k}`);
  };
  section('self time by package', pkgSelf, top);
  section('self time by function', fnSelf, top);
  section('inclusive time of project functions', ownInclusive, top);
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
  console.log(
    summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(process.argv[3] ?? 25)),
  );
}
