import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A program the tests run that no npm package brings, and the Debian package that does.
 * Chromium comes from the npm registry (`@sparticuz/chromium`, see npm-chromium.ts); these do
 * not: the `cmark-gfm` npm bindings (0.9.0) fail to compile on Node 24, the `shellcheck` npm
 * package downloads its binary at install time, and no npm package carries pgbouncer, git,
 * iptables, setfacl or ip.
 */
export interface TestTool {
  debianPackage: string;
  /** What runs it, for the message when it is missing. */
  usedBy: string;
  isPresent(env: Env): boolean;
}

export function findOnPath(command: string, env: Env): string | undefined {
  const candidates = isAbsolute(command)
    ? [command]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => join(dir, command));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function command(name: string): (env: Env) => boolean {
  return (env) => findOnPath(name, env) !== undefined;
}

/** git, and the http-backend in its exec path that serves the GitHub double's repositories. */
function gitWithHttpBackend(env: Env): boolean {
  const git = findOnPath('git', env);
  if (!git) return false;
  const execPath = spawnSync(git, ['--exec-path'], { env, encoding: 'utf8' });
  if (execPath.status !== 0) return false;
  return findOnPath(join(execPath.stdout.trim(), 'git-http-backend'), env) !== undefined;
}

export const DEBIAN_TEST_TOOLS: readonly TestTool[] = [
  {
    debianPackage: 'cmark-gfm',
    usedBy: "GitHub's markdown parser in test/rendering/ (or set CMARK_GFM_PATH)",
    isPresent: (env) => findOnPath(env.CMARK_GFM_PATH ?? 'cmark-gfm', env) !== undefined,
  },
  {
    debianPackage: 'git',
    usedBy: "git and git's http-backend for the GitHub double",
    isPresent: gitWithHttpBackend,
  },
  {
    debianPackage: 'shellcheck',
    usedBy: "shellcheck of the workflows' run: blocks",
    isPresent: command('shellcheck'),
  },
  {
    debianPackage: 'pgbouncer',
    usedBy: 'the app behind PgBouncer',
    isPresent: command('pgbouncer'),
  },
  {
    debianPackage: 'openssl',
    usedBy: 'the certificates of the app on Postgres over TLS',
    isPresent: command('openssl'),
  },
  {
    // The package ships ip6tables beside it.
    debianPackage: 'iptables',
    usedBy: "the agent's netfilter rules (iptables, ip6tables) in test/worker/",
    isPresent: command('iptables'),
  },
  {
    debianPackage: 'acl',
    usedBy: "setfacl, which closes the resolver's sockets to the agent in test/worker/",
    isPresent: command('setfacl'),
  },
  {
    debianPackage: 'iproute2',
    usedBy: 'the network namespaces (ip netns) that stand for hosts of the internet',
    isPresent: command('ip'),
  },
];

/**
 * NSS, which the Chromium of `@sparticuz/chromium` links against without carrying it (Debian's
 * libnss3 brings libnss3, libnssutil3 and libnspr4): present when `ldd` resolves every library
 * of the binary.
 */
export function chromiumLibraries(chromium: string): TestTool {
  return {
    debianPackage: 'libnss3',
    usedBy: `the libraries of the browser tests' Chromium (${chromium})`,
    isPresent: (env) => {
      const ldd = spawnSync('ldd', [chromium], { env, encoding: 'utf8' });
      return ldd.status === 0 && !ldd.stdout.includes('not found');
    },
  };
}

export function missingTools(tools: readonly TestTool[], env: Env): TestTool[] {
  return tools.filter((tool) => !tool.isPresent(env));
}

export interface EnsureOptions {
  tools?: readonly TestTool[];
  env?: Env;
  /** The user id the check runs as: apt-get installs only as root. */
  uid?: number;
}

/**
 * Makes sure every tool the tests run is there before any test starts. A missing one is
 * installed with apt-get when this runs as root where apt-get exists (so `npm test` passes as
 * the README says on a fresh Debian machine with Node and Postgres only), unless
 * TEST_TOOLS_INSTALL=0; otherwise it throws at once, naming the packages to install.
 */
export function ensureTestTools(options: EnsureOptions = {}): void {
  const tools = options.tools ?? DEBIAN_TEST_TOOLS;
  const env = options.env ?? process.env;
  const missing = missingTools(tools, env);
  if (missing.length === 0) return;
  const installer = aptGetOrRefusal(env, options.uid ?? process.getuid?.());
  if ('refusal' in installer) throw new Error(missingMessage(missing, installer.refusal));
  aptGetInstall(
    installer.aptGet,
    missing.map((tool) => tool.debianPackage),
    env,
  );
  const still = missingTools(missing, env);
  if (still.length > 0)
    throw new Error(missingMessage(still, 'still missing after apt-get install'));
}

function aptGetOrRefusal(
  env: Env,
  uid: number | undefined,
): { aptGet: string } | { refusal: string } {
  if (env.TEST_TOOLS_INSTALL === '0') return { refusal: 'TEST_TOOLS_INSTALL=0' };
  if (uid !== 0) return { refusal: 'not running as root' };
  const aptGet = findOnPath('apt-get', env);
  return aptGet ? { aptGet } : { refusal: 'no apt-get on PATH' };
}

function missingMessage(missing: readonly TestTool[], why: string): string {
  const packages = missing.map((tool) => tool.debianPackage);
  const lines = missing.map((tool) => `  ${tool.debianPackage}: ${tool.usedBy}`);
  return [
    `The tests need programs that are not on PATH (${why}):`,
    ...lines,
    `Install them: apt-get install -y ${packages.join(' ')}`,
  ].join('\n');
}

function aptGetInstall(aptGet: string, packages: readonly string[], env: Env): void {
  console.log(`Installing the Debian packages the tests run: ${packages.join(' ')}`);
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  // Another test run may hold dpkg's lock while it installs the same packages: wait for it.
  const wait = ['-o', 'DPkg::Lock::Timeout=300'];
  for (const args of [
    ['update', '-qq', ...wait],
    ['install', '-y', '-qq', '--no-install-recommends', ...wait, ...packages],
  ]) {
    const run = spawnSync(aptGet, args, { env: aptEnv, stdio: ['ignore', 'inherit', 'inherit'] });
    if (run.error || run.status !== 0) {
      const how = run.error ? run.error.message : `exited ${run.status}`;
      throw new Error(`apt-get ${args.join(' ')} ${how}: install ${packages.join(' ')} by hand`);
    }
  }
}
