import type { KnipConfig } from 'knip';

// `npm run knip`: unused files, exports, types and dependencies. src/main.ts and bench/run.ts are
// entries through package.json's scripts, and the vitest, eslint and drizzle configs through
// knip's plugins for them.
const config: KnipConfig = {
  entry: [
    'src/cli/bin.ts',
    'src/worker/action.ts',
    'scripts/*.ts',
    // Forked by path (bench/lib/child.ts forkTs, test/chaos/harness.ts, test/helpers/npm-chromium.ts)
    // or run by hand (bench/README.md), so nothing imports them.
    'bench/fleet-coordinator.ts',
    'bench/github-stub.ts',
    'bench/ingest-server.ts',
    'bench/profile-summary.ts',
    'test/chaos/double-process.ts',
    'test/helpers/inflate-chromium.ts',
    'test/**/*.test.ts',
  ],
  project: [
    'src/**/*.ts',
    'db/**/*.ts',
    'test/**/*.ts',
    'bench/**/*.ts',
    'scripts/**/*.ts',
    '*.{ts,js}',
  ],
  // An export its own file uses is not dead code, only wider than it needs to be.
  ignoreExportsUsedInFile: true,
  // The global setup's tool check runs glibc's ldd on the browser tests' Chromium (test-tools.ts).
  ignoreBinaries: ['ldd'],
  ignoreDependencies: [
    // test/rendering/mermaid.browser.test.ts loads node_modules/mermaid/dist/mermaid.min.js into
    // Chromium by path: no import for knip to see.
    'mermaid',
  ],
};

export default config;
