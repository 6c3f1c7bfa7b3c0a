import type { BuildOptions } from 'esbuild';
import { fileURLToPath } from 'node:url';

export const ACTION_DIR = 'actions/worker';
/** CommonJS in a `.cjs` file: the repository's package.json says `"type": "module"`, and
 * GitHub downloads the whole repository for `uses:`, so a `.js` file would be read as ESM. */
export const ACTION_BUNDLE = `${ACTION_DIR}/dist/index.cjs`;

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * One file, no dependencies to install: the runner starts it with its own Node (24 for
 * `using: node24`), and the target keeps it runnable on Node 20 too. Paths in the output are
 * relative to the repository, so the same sources give the same bytes on any machine.
 */
export const actionBuildOptions: BuildOptions = {
  absWorkingDir: root,
  entryPoints: ['src/worker/action.ts'],
  outfile: ACTION_BUNDLE,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  charset: 'utf8',
  legalComments: 'eof',
  sourcemap: false,
  minify: false,
  logLevel: 'warning',
  banner: { js: '// Built by `npm run build:action` from src/worker/. Do not edit.' },
};
