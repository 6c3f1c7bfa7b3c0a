import { CONFIG_PATH } from '../config/schema.js';

/**
 * Paths the publish job refuses or flags, compared as the file systems people check the branch
 * out on compare names (docs/worker.md, "What the publish job checks"): macOS (HFS+, APFS) and
 * Windows (NTFS) ignore case, HFS+ ignores some invisible code points, and NTFS drops trailing
 * dots and spaces and answers to 8.3 short names. On those, `.GitHub/Workflows/x.yml` and
 * `GITHUB~1/WORKFL~1/x.yml` are workflow files, `CLAUDE.MD` is `CLAUDE.md`, and `.g\u200cit/`
 * is `.git/`.
 */

// What HFS+ skips when it compares names (git's utf8.c, next_hfs_char).
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu;

/** One path component as those file systems would name it. */
function foldComponent(component: string): string {
  return component
    .normalize('NFC')
    .replace(HFS_IGNORABLE, '')
    .toLowerCase()
    .replace(/[. ]+$/, (dots) => (dots === component ? dots : ''));
}

/** A `/`-separated path's components, each folded. */
export function foldedComponents(path: string): string[] {
  return path.split('/').map(foldComponent);
}

/** `.git` itself or its NTFS short name (`git~1`), whichever way it is written. */
export function isGitComponent(component: string): boolean {
  const folded = foldComponent(component);
  return folded === '.git' || /^git~\d+$/.test(folded);
}

/** Whether `path` is, or is inside, `prefix` (folded, `/`-separated, no trailing slash). */
export function isUnder(path: string, prefix: string): boolean {
  return startsWith(foldedComponents(path), prefix);
}

/** Whether folded components start with `prefix`'s (folded, `/`-separated). */
export function startsWith(parts: readonly string[], prefix: string): boolean {
  const want = prefix.split('/');
  return want.length <= parts.length && want.every((p, i) => namesSame(parts[i]!, p));
}

/**
 * Whether a folded component names `want` (folded) on NTFS, which also answers to a folder's or
 * file's 8.3 short name: where `.github/workflows/` exists, `GITHUB~1/WORKFL~1/x.yml` is written
 * into it, as `git~1` is `.git`. Both forms Windows makes are taken, the first six characters
 * and `~n` (`workfl~1`) and, once four names share those, two characters and four hex digits
 * (`wo1a2b~1`, git's `gi7eba~1` for `.gitmodules`), the extension cut to three.
 */
function namesSame(component: string, want: string): boolean {
  if (component === want) return true;
  const short = /^([^~]+)~\d+(\.[^.]*)?$/.exec(component);
  if (!short) return false;
  const bare = want.replace(/^\.+/, '');
  const dot = bare.lastIndexOf('.');
  const stem = (dot > 0 ? bare.slice(0, dot) : bare).replace(/[. ]/g, '');
  const ext = dot > 0 ? `.${bare.slice(dot + 1, dot + 4)}` : '';
  const head = short[1]!;
  const hashed = head.startsWith(stem.slice(0, 2)) && /^..[0-9a-f]{4}$/.test(head);
  return (short[2] ?? '') === ext && (head === stem.slice(0, 6) || hashed);
}

/** Files under `.github/workflows/`, however cased or spelled. */
export function isWorkflowFile(path: string): boolean {
  return isUnder(path, '.github/workflows') && path.split('/').length > 2;
}

/**
 * The coordinator's own configuration, however cased: the agent's limits (approval before a merge,
 * budget, retries, parallelism), which only people set. An agent's PR that changed it would, once
 * merged, loosen every later run; and GitHub reads the file only from the default branch, so a
 * reviewer is the only check (docs/worker.md, "What the publish job checks").
 */
export function isCoordinatorConfig(path: string): boolean {
  const parts = foldedComponents(path);
  return parts.length === 2 && startsWith(parts, CONFIG_PATH.toLowerCase());
}

/** A file whose change the publish job never pushes: a workflow file or the coordinator's configuration. */
export function isProtectedFile(path: string): boolean {
  return isWorkflowFile(path) || isCoordinatorConfig(path);
}

/**
 * Why the publish job would refuse a change to these paths, workflow files first (GitHub itself
 * refuses those); undefined when it may push them.
 */
export function protectedChange(
  paths: readonly string[],
):
  { reason: 'workflow_files_changed' | 'coordinator_config_changed'; paths: string[] } | undefined {
  const workflows = paths.filter(isWorkflowFile);
  if (workflows.length > 0) return { reason: 'workflow_files_changed', paths: workflows };
  const config = paths.filter(isCoordinatorConfig);
  if (config.length > 0) return { reason: 'coordinator_config_changed', paths: config };
  return undefined;
}
