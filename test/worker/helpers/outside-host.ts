import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { expect } from 'vitest';
import { makeTestCertificates } from '../../helpers/tls-certificates.js';

/**
 * A host of the internet, as the agent would reach it: an HTTP server on port 80, and HTTPS on 443
 * with a certificate for its address, in a network namespace of the test's own, behind a veth
 * pair, so that traffic to it leaves the machine's own namespace through a non-loopback interface.
 * Its addresses are a /30 of 198.18.0.0/15 (RFC 2544, for tests; never routed), drawn for each host
 * so that test files running at once do not meet.
 */
export interface OutsideHost {
  /** Its address in the namespace. */
  address: string;
  /** The PEM file of the authority that signed its certificate, readable by every user. */
  caFile: string;
  /** The paths of the requests it heard, in order. */
  heard(): string[];
  close(): Promise<void>;
}

function ip(...args: string[]): void {
  const run = spawnSync('ip', args, { encoding: 'utf8' });
  expect(run.status, `ip ${args.join(' ')}: ${run.stderr}`).toBe(0);
}

/**
 * Answers `outside <path>` over HTTP and HTTPS (the certificate and key files its second and third
 * arguments name) and says each request's path on a line of its own.
 */
const SERVER = String.raw`
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const [address, cert, key] = process.argv.slice(1);
const answer = (req, res) => {
  console.log('heard ' + req.url);
  res.end('outside ' + req.url + '\n');
};
const tls = { cert: fs.readFileSync(cert), key: fs.readFileSync(key) };
http.createServer(answer).listen(80, address, () =>
  https.createServer(tls, answer).listen(443, address, () => console.log('listening')),
);
`;

export async function startOutsideHost(): Promise<OutsideHost> {
  const id = randomBytes(3).toString('hex');
  const namespace = `ac-out-${id}`;
  const [ours, theirs] = [`acv${id}o`, `acv${id}i`];
  const block = randomInt(0, 32768) * 4;
  const at = (n: number) => `198.${18 + (block >> 16)}.${(block >> 8) & 255}.${(block & 255) + n}`;
  ip('netns', 'add', namespace);
  ip('link', 'add', ours, 'type', 'veth', 'peer', 'name', theirs);
  ip('link', 'set', theirs, 'netns', namespace);
  ip('addr', 'add', `${at(1)}/30`, 'dev', ours);
  ip('link', 'set', ours, 'up');
  ip('-n', namespace, 'addr', 'add', `${at(2)}/30`, 'dev', theirs);
  ip('-n', namespace, 'link', 'set', theirs, 'up');
  ip('-n', namespace, 'link', 'set', 'lo', 'up');

  const certificates = makeTestCertificates([`IP:${at(2)}`]);
  const server: ChildProcess = spawn(
    'ip',
    [
      'netns',
      'exec',
      namespace,
      process.execPath,
      '-e',
      SERVER,
      at(2),
      certificates.certFile,
      certificates.keyFile,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  server.stdout!.setEncoding('utf8');
  const listening = new Promise<void>((resolve) =>
    server.stdout!.on('data', (text: string) => {
      out += text;
      if (out.includes('listening\n')) resolve();
    }),
  );
  await listening;
  return {
    address: at(2),
    caFile: certificates.caFile,
    heard: () =>
      out
        .split('\n')
        .filter((line) => line.startsWith('heard '))
        .map((line) => line.slice('heard '.length)),
    async close() {
      server.kill('SIGKILL');
      if (server.exitCode === null && server.signalCode === null) await once(server, 'exit');
      // The namespace's end of the pair goes with it, and ours with that.
      spawnSync('ip', ['netns', 'del', namespace]);
      spawnSync('ip', ['link', 'del', ours]);
      certificates.remove();
    },
  };
}

/**
 * What stands for the runner's resolver (systemd-resolved's stub on 127.0.0.53): a listener on
 * port 53 of a loopback address drawn for the test, for UDP and TCP, that counts what reaches it.
 */
export interface ResolverStandIn {
  address: string;
  /** How many datagrams and connections reached it. */
  heard(): number;
  close(): Promise<void>;
}

export async function startResolverStandIn(): Promise<ResolverStandIn> {
  const address = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  let heard = 0;
  const udp = createSocket('udp4');
  udp.on('message', (_message, from) => {
    heard++;
    udp.send('answer', from.port, from.address);
  });
  udp.bind(53, address);
  await once(udp, 'listening');
  const tcp = createServer((socket) => {
    heard++;
    socket.end();
  }).listen(53, address);
  await once(tcp, 'listening');
  return {
    address,
    heard: () => heard,
    async close() {
      udp.close();
      tcp.close();
      await once(tcp, 'close');
    },
  };
}

/**
 * A network namespace set up as a `container:` job's is (docs/worker.md, "The agent's network"):
 * Docker's embedded resolver, which /etc/resolv.conf names as 127.0.0.11, listens on a port of its
 * own choosing, and a NAT rule of the namespace sends 127.0.0.11:53 there (moby/libnetwork,
 * resolver.go; issue 1085). The stand-in counts what reaches it. `exec` is the prefix that runs a
 * command in the namespace, with that resolv.conf (`ip netns exec` mounts /etc/netns/<name>/ over
 * /etc).
 */
export interface ContainerResolver {
  address: string;
  /** The port it listens on, which port 53 is forwarded to. */
  port: number;
  exec: string[];
  heard(): number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.11, UDP and TCP, on one free port; says it, then each thing it heard. */
const EMBEDDED_RESOLVER = String.raw`
const dgram = require('node:dgram');
const net = require('node:net');
const tcp = net.createServer((socket) => { console.log('heard'); socket.end(); });
tcp.listen(0, '127.0.0.11', () => {
  const port = tcp.address().port;
  const udp = dgram.createSocket('udp4');
  udp.on('message', (m, from) => { console.log('heard'); udp.send('answer', from.port, from.address); });
  udp.bind(port, '127.0.0.11', () => console.log('listening ' + port));
});
`;

export async function startContainerResolver(): Promise<ContainerResolver> {
  const namespace = `ac-dns-${randomBytes(3).toString('hex')}`;
  const etc = `/etc/netns/${namespace}`;
  const address = '127.0.0.11';
  ip('netns', 'add', namespace);
  ip('-n', namespace, 'link', 'set', 'lo', 'up');
  mkdirSync(etc, { recursive: true });
  writeFileSync(`${etc}/resolv.conf`, `nameserver ${address}\noptions ndots:0\n`);
  const server: ChildProcess = spawn(
    'ip',
    ['netns', 'exec', namespace, process.execPath, '-e', EMBEDDED_RESOLVER],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  server.stdout!.setEncoding('utf8');
  const port = await new Promise<number>((resolve) =>
    server.stdout!.on('data', (text: string) => {
      out += text;
      const listening = /listening (\d+)\n/.exec(out);
      if (listening) resolve(Number(listening[1]));
    }),
  );
  for (const proto of ['udp', 'tcp']) {
    const run = spawnSync(
      'ip',
      [
        'netns',
        'exec',
        namespace,
        'iptables',
        '-w',
        '-t',
        'nat',
        '-A',
        'OUTPUT',
        '-d',
        address,
        '-p',
        proto,
        '--dport',
        '53',
        '-j',
        'DNAT',
        '--to-destination',
        `${address}:${port}`,
      ],
      { encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
  }
  return {
    address,
    port,
    exec: ['ip', 'netns', 'exec', namespace],
    heard: () => out.split('\n').filter((line) => line === 'heard').length,
    async close() {
      server.kill('SIGKILL');
      if (server.exitCode === null && server.signalCode === null) await once(server, 'exit');
      spawnSync('ip', ['netns', 'del', namespace]);
      rmSync(etc, { recursive: true, force: true });
    },
  };
}
