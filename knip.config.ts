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
  // System programs the tests run: Debian's shellcheck (test/workflows/shellcheck.test.ts names
  // the package when it is missing); FIFOs made the way an agent makes them (Node has no mkfifo),
  // and the removal of an agent user a failed finish() left behind; glibc's ldd, which the global
  // setup's tool check runs on the browser tests' Chromium (test-tools.ts); Debian's openssl,
  // which makes the TLS test's certificates (test/helpers/tls-certificates.ts); iproute2's ip,
  // which makes the network namespace that stands for a host of the internet
  // (test/worker/helpers/outside-host.ts); util-linux's setpriv, which connects as another user,
  // and the acl package's getfacl, which reads the entries the worker set
  // (test/worker/resolver-sockets.test.ts).
  ignoreBinaries: ['shellcheck', 'mkfifo', 'userdel', 'ldd', 'openssl', 'ip', 'setpriv', 'getfacl'],
  ignoreDependencies: [
    // test/rendering/mermaid.browser.test.ts loads node_modules/mermaid/dist/mermaid.min.js into
    // Chromium by path: no import for knip to see.
    'mermaid',
    // test/worker/agent-cli.test.ts runs its `claude` binary by path: the CLI the worker
    // template installs, at the same version.
    '@anthropic-ai/claude-code',
  ],
};

export default config;
