import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '../..');
const tsxLoader = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
const PACKAGE = '@sparticuz/chromium';

/**
 * The Chromium the browser tests drive, from the npm registry: `@sparticuz/chromium` carries a
 * headless Chromium that needs only the system's NSS (Debian's libnss3, checked by the global
 * setup), so `npm test` needs no browser installed by hand. Its `executablePath()` inflates the binary into `os.tmpdir()`, and returns
 * whatever `chromium` is already there, of any version; so it runs in a child process whose
 * TMPDIR is a scratch directory, renamed whole to a directory named for the pinned version
 * under node_modules/.cache (which `npm ci` empties): a half-inflated or older binary is never
 * used.
 */
export function npmChromium(): string {
  const version = pinnedVersion();
  const cache = join(root, 'node_modules/.cache/agent-coordinator-chromium');
  const dir = join(cache, version);
  const binary = join(dir, 'chromium');
  if (existsSync(binary)) return binary;
  mkdirSync(cache, { recursive: true });
  const scratch = mkdtempSync(join(cache, `.inflating-${version}-`));
  try {
    const inflated = execFileSync(
      process.execPath,
      ['--import', tsxLoader, join(import.meta.dirname, 'inflate-chromium.ts')],
      { cwd: root, env: { ...process.env, TMPDIR: scratch }, encoding: 'utf8' },
    );
    if (basename(inflated) !== 'chromium' || !existsSync(join(scratch, 'chromium')))
      throw new Error(`${PACKAGE} inflated Chromium to ${inflated}, not into ${scratch}`);
    try {
      renameSync(scratch, dir);
    } catch (error) {
      // Another test run renamed its copy first: that one is as good as this one.
      if (!existsSync(binary)) throw error;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return binary;
}

function pinnedVersion(): string {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const version = manifest.devDependencies[PACKAGE];
  if (!version) throw new Error(`${PACKAGE} is not a devDependency in package.json`);
  return version;
}
