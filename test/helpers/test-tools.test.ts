import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  chromiumLibraries,
  DEBIAN_TEST_TOOLS,
  ensureTestTools,
  missingTools,
} from './test-tools.js';

const ALL = 'cmark-gfm git shellcheck pgbouncer openssl iptables acl iproute2';
let dirs: string[] = [];

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'test-tools-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

/** An executable node script (an empty PATH leaves a shell script no command to run). */
function script(file: string, body: string): void {
  writeFileSync(file, `#!${process.execPath}\n${body}\n`);
  chmodSync(file, 0o755);
}

/**
 * A directory holding only an apt-get that logs its arguments and, on `install`, "installs"
 * each package named into that same directory: an executable of the package's name (`ip` for
 * iproute2, `setfacl` for acl), and for
 * git one that answers `--exec-path` with a directory holding git-http-backend. `exitCode`
 * makes it fail instead.
 */
function aptGetOnly(exitCode = 0): { bin: string; log: string } {
  const bin = scratch();
  const log = join(bin, 'apt-get.log');
  script(
    join(bin, 'apt-get'),
    `
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, args.join(' ') + '\\n');
if (${exitCode}) process.exit(${exitCode});
if (args[0] !== 'install') process.exit(0);
const tool = (file, body) => fs.writeFileSync(file, '#!' + process.execPath + '\\n' + body, { mode: 0o755 });
const commands = { iproute2: 'ip', acl: 'setfacl' };
for (const name of args.filter((a) => /^[a-z][a-z0-9-]+$/.test(a) && a !== 'install')) {
  if (name !== 'git') { tool(path.join(${JSON.stringify(bin)}, commands[name] ?? name), ''); continue; }
  const core = path.join(${JSON.stringify(bin)}, 'git-core');
  fs.mkdirSync(core);
  tool(path.join(core, 'git-http-backend'), '');
  tool(path.join(${JSON.stringify(bin)}, 'git'), 'console.log(' + JSON.stringify(core) + ')');
}`,
  );
  return { bin, log };
}

describe('the tools the tests run', () => {
  it('are all here for this run (the global setup installed any that were missing)', () => {
    expect(missingTools(DEBIAN_TEST_TOOLS, process.env)).toEqual([]);
    expect(() => ensureTestTools()).not.toThrow();
  });

  it('fail at once, naming every package, when none is on PATH and apt-get is not either', () => {
    expect(() => ensureTestTools({ env: { PATH: '' }, uid: 0 })).toThrow(
      [
        'The tests need programs that are not on PATH (no apt-get on PATH):',
        "  cmark-gfm: GitHub's markdown parser in test/rendering/ (or set CMARK_GFM_PATH)",
        "  git: git and git's http-backend for the GitHub double",
        "  shellcheck: shellcheck of the workflows' run: blocks",
        '  pgbouncer: the app behind PgBouncer',
        '  openssl: the certificates of the app on Postgres over TLS',
        "  iptables: the agent's netfilter rules (iptables, ip6tables) in test/worker/",
        "  acl: setfacl, which closes the resolver's sockets to the agent in test/worker/",
        '  iproute2: the network namespaces (ip netns) that stand for hosts of the internet',
        `Install them: apt-get install -y ${ALL}`,
      ].join('\n'),
    );
  });

  it('are not installed when not root, or when TEST_TOOLS_INSTALL=0, and apt-get is not run', () => {
    const { bin, log } = aptGetOnly();
    expect(() => ensureTestTools({ env: { PATH: bin }, uid: 1000 })).toThrow(
      /\(not running as root\)[\s\S]*Install them: apt-get install -y cmark-gfm git shellcheck pgbouncer openssl iptables acl iproute2$/,
    );
    expect(() => ensureTestTools({ env: { PATH: bin, TEST_TOOLS_INSTALL: '0' }, uid: 0 })).toThrow(
      /\(TEST_TOOLS_INSTALL=0\)/,
    );
    expect(() => readFileSync(log)).toThrow(/ENOENT/);
  });

  it('are installed with apt-get as root, only those missing, and checked again', () => {
    const { bin, log } = aptGetOnly();
    script(join(bin, 'shellcheck'), '');
    ensureTestTools({ env: { PATH: bin }, uid: 0 });
    const wait = '-o DPkg::Lock::Timeout=300';
    expect(readFileSync(log, 'utf8')).toBe(
      `update -qq ${wait}\ninstall -y -qq --no-install-recommends ${wait} cmark-gfm git pgbouncer openssl iptables acl iproute2\n`,
    );
    expect(missingTools(DEBIAN_TEST_TOOLS, { PATH: bin })).toEqual([]);
  });

  it('fail with what apt-get said when it fails', () => {
    const { bin } = aptGetOnly(100);
    expect(() => ensureTestTools({ env: { PATH: bin }, uid: 0 })).toThrow(
      `apt-get update -qq -o DPkg::Lock::Timeout=300 exited 100: install ${ALL} by hand`,
    );
  });

  it('count git as missing when its exec path has no http-backend', () => {
    const bin = scratch();
    const core = join(bin, 'git-core');
    mkdirSync(core);
    script(join(bin, 'git'), `console.log(${JSON.stringify(core)})`);
    const git = DEBIAN_TEST_TOOLS.find((tool) => tool.debianPackage === 'git')!;
    expect(git.isPresent({ PATH: bin })).toBe(false);
    script(join(core, 'git-http-backend'), '');
    expect(git.isPresent({ PATH: bin })).toBe(true);
  });

  it('take cmark-gfm from CMARK_GFM_PATH when it is set', () => {
    const bin = scratch();
    script(join(bin, 'my-cmark'), '');
    const cmark = DEBIAN_TEST_TOOLS.find((tool) => tool.debianPackage === 'cmark-gfm')!;
    expect(cmark.isPresent({ PATH: '', CMARK_GFM_PATH: join(bin, 'my-cmark') })).toBe(true);
    expect(cmark.isPresent({ PATH: bin, CMARK_GFM_PATH: join(bin, 'missing') })).toBe(false);
  });

  it("count Chromium's NSS as missing when ldd cannot resolve the binary's libraries", () => {
    const chromium = chromiumLibraries(inject('chromiumPath'));
    expect(chromium.isPresent(process.env)).toBe(true);
    expect(chromium.isPresent({ PATH: '' })).toBe(false);
    const bin = scratch();
    script(join(bin, 'not-elf'), '');
    expect(chromiumLibraries(join(bin, 'not-elf')).isPresent(process.env)).toBe(false);
    expect(() => ensureTestTools({ tools: [chromium], env: { PATH: '' }, uid: 0 })).toThrow(
      /libnss3: the libraries of the browser tests' Chromium[\s\S]*apt-get install -y libnss3$/,
    );
  });
});
