import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { agentSharedFolder } from '../helpers/agent-scratch.js';
import { errorLine } from './error-line.js';
import {
  attemptJobEnv,
  chownAll,
  runAssignmentJob,
  runBundle,
  startCoordinator,
  withoutPrivilege,
} from './helpers/bundle.js';
import { createGitFixture, type GitFixture } from './helpers/git-fixture.js';
import { assignmentFixture } from './helpers/harness.js';
import { writeNetworkAgent } from './helpers/network-agent.js';
import { writeSurvivorAgent } from './helpers/survivor-agent.js';
import {
  startContainerResolver,
  startOutsideHost,
  startResolverStandIn,
  type OutsideHost,
  type ResolverStandIn,
} from './helpers/outside-host.js';

/**
 * The agent's network (docs/worker.md, "The agent's network"), with the real netfilter rules:
 * these tests run as root with CAP_NET_ADMIN, as the worker does in a container job (on
 * GitHub's runners it uses sudo). The committed bundle runs the assignment job and the agent job
 * of one attempt; the agent (helpers/network-agent.ts) tries every way out to a host of the
 * internet, which is a namespace of the test's own behind a veth pair (helpers/outside-host.ts).
 */

interface Report {
  uid: number;
  proxyEnv: Record<string, string | null>;
  direct: string[];
  dns: string[];
  dnsDirect?: string[];
  viaConnect?: string;
  plainViaConnect?: string;
  viaAbsolute?: string;
  refused?: string[];
  keyProxy?: string;
}

const PROXY = /^http:\/\/127\.0\.0\.1:\d+$/;
const REFUSED = ['ECONNREFUSED', 'ECONNREFUSED'];

/** The netfilter rules of both families, as `-S` prints them. */
function rules(): string {
  return ['iptables', 'ip6tables']
    .map((command) => spawnSync(command, ['-S'], { encoding: 'utf8' }).stdout)
    .join('\n');
}

function readLines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/**
 * What the worker left of an agent's user `uid`: its processes killed (kill(-1) as that uid,
 * never as root), its rules taken away, the user deleted.
 */
function killUser(uid: number): void {
  expect(uid, 'an agent user, never root').toBeGreaterThan(0);
  spawnSync('setpriv', [
    `--reuid=${uid}`,
    `--regid=${uid}`,
    '--clear-groups',
    'kill',
    '-KILL',
    '-1',
  ]);
  const name = spawnSync('id', ['-nu', String(uid)], { encoding: 'utf8' }).stdout.trim();
  for (const command of ['iptables', 'ip6tables']) {
    const entry = ['OUTPUT', '-m', 'owner', '--uid-owner', String(uid), '-j', `ac-${name}`];
    spawnSync(command, ['-w', '-D', ...entry]);
    spawnSync(command, ['-w', '-F', `ac-${name}`]);
    spawnSync(command, ['-w', '-X', `ac-${name}`]);
  }
  if (name) spawnSync('userdel', [name]);
}

describe("the agent's network", () => {
  let outside: OutsideHost;
  let resolver: ResolverStandIn;
  let api: Server;
  let apiUrl: string;
  const cleanups: string[] = [];
  const fixtures: GitFixture[] = [];
  const servers: Server[] = [];
  beforeAll(async () => {
    [outside, resolver] = await Promise.all([startOutsideHost(), startResolverStandIn()]);
    // The model API behind the worker's key proxy.
    api = createServer((req, res) => {
      req.resume();
      res.end('{}');
    }).listen(0, '127.0.0.1');
    await once(api, 'listening');
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await outside?.close();
    await resolver?.close();
    api?.close();
  });
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
    for (const fx of fixtures.splice(0)) fx.cleanup();
    for (const dir of cleanups.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A folder where agents (users of their own) and the test meet. */
  const sharedDir = () => {
    const dir = agentSharedFolder('agent-network-');
    cleanups.push(dir);
    return dir;
  };

  /**
   * The assignment job, then the agent job, of one attempt whose assignment says `network`
   * (none: a coordinator from before the key). `env` is the agent job's besides.
   */
  async function attempt(options: {
    network?: { allow: string[] };
    env?: NodeJS.ProcessEnv;
    as?: string[];
    onStdout?: (log: string) => void;
    /** Before the agent job, given the fixture (a test hands it to another user). */
    before?: (fx: GitFixture) => void;
  }) {
    const fx = createGitFixture('agent/7/task_001');
    fixtures.push(fx);
    const body = {
      ...assignmentFixture('ghs_unused'),
      ...(options.network && { network: options.network }),
    };
    const coordinator = await startCoordinator(() => ({ status: 200, body }));
    servers.push(coordinator.server);
    const temps = [0, 1].map(() => mkdtempSync(join(fx.root, 'runner-temp-')));
    const env = {
      ...attemptJobEnv(coordinator.url, fx.workspace),
    };
    await runAssignmentJob(env, fx.workspace, coordinator.url, temps);
    options.before?.(fx);
    // Where the agent, a user of its own, writes what it found.
    const reports = agentSharedFolder('agent-network-report-');
    cleanups.push(reports);
    const report = join(reports, 'report.json');
    const run = await runBundle(
      {
        ...env,
        INPUT_STEP: 'agent',
        RUNNER_TEMP: temps[1],
        AGENT_COMMAND: writeNetworkAgent(fx.root),
        NET_OUTSIDE: outside.address,
        NET_CA: outside.caFile,
        NET_DNS: resolver.address,
        NET_REPORT: report,
        ANTHROPIC_API_KEY: 'sk-ant-api03-held-by-the-worker',
        ANTHROPIC_BASE_URL: apiUrl,
        ...options.env,
      },
      fx.workspace,
      options.as,
      options.onStdout,
    );
    return {
      run,
      report: existsSync(report) ? (JSON.parse(readFileSync(report, 'utf8')) as Report) : undefined,
    };
  }

  it('keeps a closed network on loopback: no host directly, no DNS, only the allowed host through the proxy, and the rules only while the agent runs', async () => {
    const sync = sharedDir();
    let during = '';
    let who: { user: string; uid: string } | undefined;
    const heardBefore = outside.heard().length;
    const { run, report } = await attempt({
      network: { allow: [outside.address] },
      env: { NET_SYNC: sync, NET_SELF: 'agent', NET_PEER: 'test' },
      // The agent has started: its rules are in place. Then it may go on.
      onStdout: (log) => {
        const ready = /net-agent: ready (\S+) (\d+)/.exec(log);
        if (!ready || who) return;
        who = { user: ready[1]!, uid: ready[2]! };
        during = rules();
        writeFileSync(join(sync, 'test-ready'), '');
        writeFileSync(join(sync, 'test-done'), '');
      },
    });
    expect(run.code, run.stdout).toBe(0);
    const chain = `ac-${who!.user}`;
    expect(during).toContain(`-A OUTPUT -m owner --uid-owner ${who!.uid} -j ${chain}`);
    // Both families: IPv4 and IPv6.
    expect(during.split('\n').filter((l) => l === `-N ${chain}`)).toHaveLength(2);

    expect(report).toMatchObject({
      direct: REFUSED,
      // The resolver stand-in, over UDP and TCP, and the runner's usual resolver addresses: a
      // datagram the rules refuse is not sent (EPERM), a connection is reset.
      dns: ['EPERM', 'ECONNREFUSED', 'EPERM', 'EPERM'],
      viaConnect: '200 outside /via-connect',
      // A tunnel carries TLS that names the host connected to, and nothing else.
      plainViaConnect: '200 closed',
      viaAbsolute: '200 outside /via-absolute',
      refused: ['403', '403', '403 agent-coordinator: 203.0.113.9 is not in worker.network.allow'],
      // Loopback stays open: its model API, through the worker's key proxy.
      keyProxy: '200 {}',
    });
    expect(report!.proxyEnv).toMatchObject({
      HTTPS_PROXY: expect.stringMatching(PROXY),
      https_proxy: report!.proxyEnv.HTTPS_PROXY,
      HTTP_PROXY: report!.proxyEnv.HTTPS_PROXY,
      http_proxy: report!.proxyEnv.HTTPS_PROXY,
      NO_PROXY: '127.0.0.1,localhost,::1',
      no_proxy: '127.0.0.1,localhost,::1',
    });
    // The outside host heard the proxy's requests only; the resolver, nothing.
    expect(outside.heard().slice(heardBefore).sort()).toEqual(['/via-absolute', '/via-connect']);
    expect(resolver.heard()).toBe(0);

    expect(run.stdout).toContain(
      `agent-coordinator: the agent's network is closed: loopback only, and through the worker's proxy to ${outside.address}`,
    );
    // Each refused host once, however often the agent asked.
    const refusals = run.stdout.split('\n').filter((l) => l.includes('network: refused'));
    expect(refusals).toEqual([
      `agent-coordinator: the agent's network: refused ${outside.address} (the tunnel does not begin with a TLS ClientHello: its first byte is 71, not a TLS handshake record's (22))`,
      "agent-coordinator: the agent's network: refused exfil.example (not in worker.network.allow)",
      "agent-coordinator: the agent's network: refused 203.0.113.9 (not in worker.network.allow)",
    ]);
    const after = rules();
    expect(after).not.toContain(chain);
    expect(after).not.toContain(`--uid-owner ${who!.uid} `);
  }, 120_000);

  it("keeps two agents' rules apart: one closed, which crashes, and one open at the same time", async () => {
    const sync = sharedDir();
    const heardBefore = outside.heard();
    const resolverBefore = resolver.heard();
    const whoOf = (log: string) => /net-agent: ready (\S+) (\d+)/.exec(log);
    let closedWho: RegExpExecArray | null = null;
    const [closed, open] = await Promise.all([
      attempt({
        network: { allow: [outside.address] },
        env: { NET_SYNC: sync, NET_SELF: 'closed', NET_PEER: 'open', NET_CRASH: '1' },
        onStdout: (log) => (closedWho ??= whoOf(log)),
      }),
      attempt({
        network: { allow: ['*'] },
        env: { NET_SYNC: sync, NET_SELF: 'open', NET_PEER: 'closed' },
      }),
    ]);
    // The closed agent killed itself: its attempt failed, and its rules went all the same.
    expect(closed.run.code, closed.run.stdout).toBe(1);
    expect(closed.run.stdout.trimEnd().split('\n').at(-1)).toMatch(errorLine('agent_failed'));
    expect(closed.run.stdout).toContain('killed by SIGKILL');
    expect(closed.report).toMatchObject({
      direct: REFUSED,
      viaConnect: '200 outside /via-connect',
    });
    // The open agent, while the closed one ran, reached the host and the resolver itself.
    expect(open.run.code, open.run.stdout).toBe(0);
    expect(open.run.stdout).toContain(
      'agent-coordinator: the agent\'s network is open (worker.network.allow: ["*"])',
    );
    expect(open.report).toMatchObject({
      direct: ['connected', '200 outside /direct'],
      dns: ['answered', 'connected', expect.any(String), expect.any(String)],
      keyProxy: '200 {}',
    });
    expect(Object.values(open.report!.proxyEnv)).toEqual([null, null, null, null, null, null]);
    expect(outside.heard().slice(heardBefore.length).sort()).toEqual([
      '/direct',
      '/via-absolute',
      '/via-connect',
    ]);
    expect(resolver.heard() - resolverBefore).toBe(2);
    const after = rules();
    expect(after).not.toContain(`ac-${closedWho![1]}`);
    expect(after).not.toContain(`--uid-owner ${closedWho![2]} `);
  }, 120_000);

  it("closes a resolver on a port of its own that port 53 is forwarded to (a container job's: Docker's embedded DNS)", async () => {
    const resolver = await startContainerResolver();
    try {
      const { run, report } = await attempt({
        network: { allow: [] },
        as: resolver.exec,
        env: { NET_DNS: resolver.address, NET_DNS_PORT: String(resolver.port) },
      });
      expect(run.code, run.stdout).toBe(0);
      expect(report).toMatchObject({
        // Through the NAT rule to its own port, and to that port directly.
        dns: ['EPERM', 'ECONNREFUSED', 'EPERM', 'EPERM'],
        dnsDirect: ['EPERM', 'ECONNREFUSED'],
      });
      expect(resolver.heard()).toBe(0);
    } finally {
      await resolver.close();
    }
  }, 120_000);

  it('keeps the rules while processes of the agent may live: a worker the agent left without file descriptors could not kill them', async () => {
    const dir = sharedDir();
    const log = join(dir, 'survivor.log');
    const stop = join(dir, 'stop');
    const agent = writeSurvivorAgent(dir);
    let uid = 0;
    try {
      const { run } = await attempt({
        network: { allow: [] },
        // Few descriptors, for the agent to use up quickly (fewer than the 128 connections the
        // egress proxy keeps at most: a runner may give the worker fewer than GitHub's do); as
        // many for the agent.
        as: ['prlimit', '--nofile=128:128'],
        env: {
          AGENT_COMMAND: agent.command,
          ...agent.env,
          SURVIVOR_OUTSIDE: outside.address,
          SURVIVOR_LOG: log,
          SURVIVOR_STOP: stop,
        },
      });
      uid = Number(/survivor-agent: uid (\d+)/.exec(run.stdout)?.[1]);
      expect(run.stdout).toMatch(/survivor-agent: holder \d+ exhausted/);
      expect(run.code, run.stdout).toBe(1);
      // The worker has ended, and the agent's processes live on: the next thing they try after
      // that is still refused, and so was everything before it.
      const before = readLines(log).length;
      await vi.waitFor(() => expect(readLines(log).length).toBeGreaterThan(before), {
        timeout: 30_000,
      });
      expect(readLines(log)).not.toContainEqual(expect.stringMatching(/^reached/));
      expect(outside.heard()).not.toContain('/survivor');
      expect(rules()).toContain(`--uid-owner ${uid} `);
    } finally {
      writeFileSync(stop, '');
      killUser(uid);
    }
  }, 120_000);

  it('leaves the network open, and says why, when the coordinator is from before worker.network', async () => {
    const { run, report } = await attempt({});
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain(
      "agent-coordinator: the coordinator sent no worker.network (it is from before the key): the agent's network is open, as it was",
    );
    expect(report!.direct).toEqual(['connected', '200 outside /direct']);
  }, 120_000);

  describe('fails closed, before the agent starts (network_unrestricted)', () => {
    it('when netfilter is not there (a PATH without iptables)', async () => {
      // Every program of /usr/sbin but iptables' own.
      const bin = mkdtempSync(join(tmpdir(), 'no-iptables-'));
      for (const name of readdirSync('/usr/sbin'))
        if (!/^(ip6?tables|xtables|arptables|ebtables)/.test(name))
          symlinkSync(join('/usr/sbin', name), join(bin, name));
      try {
        const { run, report } = await attempt({
          network: { allow: [] },
          env: { PATH: `${bin}:/usr/local/bin:/usr/bin:/bin` },
        });
        expect(run.code, run.stdout).toBe(1);
        expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(errorLine('network_unrestricted'));
        expect(run.stdout).toContain(
          "worker.network.allow closes the agent's network, and the worker could not close it: iptables-restore --noflush exited with 127",
        );
        expect(run.stdout).toContain(
          '(is iptables-restore installed? Debian and Ubuntu: the iptables package) (rules: :ac-agent-',
        );
        expect(report, 'the agent never starts').toBeUndefined();
        // The user made for the agent is gone again.
        const user = /the agent runs as (agent-[0-9a-f]{8})/.exec(run.stdout)![1]!;
        expect(spawnSync('id', [user]).status).not.toBe(0);
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    }, 60_000);

    it('when the runner gives no user of its own for the agent (no root, no password-free sudo)', async () => {
      const runner = withoutPrivilege();
      let owner = '';
      let root = '';
      try {
        const { run, report } = await attempt({
          network: { allow: ['registry.npmjs.org'] },
          // No credential for the key proxy: that refusal (agent_failed) would come first.
          env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined },
          as: runner.prefix,
          before: (fx) => {
            const { uid, gid } = statSync(fx.root);
            owner = `${uid}:${gid}`;
            root = fx.root;
            chownAll(fx.root, '65534:65534', runner.prefix);
          },
        });
        expect(run.code, run.stdout).toBe(1);
        expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(errorLine('network_unrestricted'));
        expect(run.stdout).toContain(
          "worker.network.allow closes the agent's network, which takes a user of the agent's own",
        );
        expect(report, 'the agent never starts').toBeUndefined();
      } finally {
        if (root) chownAll(root, owner, runner.prefix);
      }
    }, 60_000);
  });
});
