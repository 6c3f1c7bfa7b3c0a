import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FenceError } from '../../src/worker/agent-firewall.js';
import { closeResolverSockets } from '../../src/worker/resolver-sockets.js';

/**
 * The resolver's sockets (systemd-resolved's D-Bus and varlink, nscd) closed to the agent's uid
 * alone while its network is closed, with the real setfacl: these tests run as root. The
 * resolver is a stand-in socket anyone may connect to; the agent is `nobody`.
 */
const AGENT_UID = 65534;

/** What a connection to `path` as `uid` (the agent's by default) gives. */
function connectAsAgent(path: string, uid = AGENT_UID): string {
  const script = `require('node:net').connect(${JSON.stringify(path)}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(0); });`;
  const ran = spawnSync(
    'setpriv',
    [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', process.execPath],
    { input: script, encoding: 'utf8' },
  );
  return ran.stdout.trim();
}

describe("the resolver's sockets", () => {
  let dir: string;
  let socket: string;
  let server: Server;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'resolver-'));
    chmodSync(dir, 0o755);
    socket = join(dir, 'io.systemd.Resolve');
    server = createServer((s) => s.end()).listen(socket);
    await once(server, 'listening');
    chmodSync(socket, 0o666);
  });
  afterEach(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are closed to the agent while it runs and opened again after; what is no socket is left alone', async () => {
    const plain = join(dir, 'not-a-socket');
    writeFileSync(plain, '');
    expect(connectAsAgent(socket)).toBe('connected');
    const closed = await closeResolverSockets([], AGENT_UID, [join(dir, 'missing'), plain, socket]);
    expect(connectAsAgent(socket)).toBe('EACCES');
    // The agent's uid alone: another user still reaches it, and what is no socket gets no entry.
    expect(connectAsAgent(socket, AGENT_UID - 1)).toBe('connected');
    expect(spawnSync('getfacl', ['-c', plain], { encoding: 'utf8' }).stdout).not.toContain(
      `user:${AGENT_UID}`,
    );
    await closed.reopen();
    expect(connectAsAgent(socket)).toBe('connected');
    expect(spawnSync('getfacl', ['-c', socket], { encoding: 'utf8' }).stdout).not.toContain(
      `user:${AGENT_UID}`,
    );
  });

  it('fail closed when setfacl is not there', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'no-setfacl-'));
    const path = process.env.PATH;
    process.env.PATH = bin;
    try {
      const closing = closeResolverSockets([], AGENT_UID, [socket]);
      await expect(closing).rejects.toThrow(FenceError);
      await expect(closing).rejects.toThrow(/is setfacl installed\? the acl package/);
    } finally {
      process.env.PATH = path;
      rmSync(bin, { recursive: true, force: true });
    }
    expect(connectAsAgent(socket)).toBe('connected');
  });
});
