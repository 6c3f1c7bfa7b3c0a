import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A stand-in for Claude Code, started through AGENT_COMMAND. FAKE_AGENT picks what it does;
 * FAKE_AGENT_RECORD receives what it saw (stdin, the prompt file, a few env variables).
 */
const SCRIPT = String.raw`
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';

const stdin = readFileSync(0, 'utf8');
const env = process.env;
if (env.FAKE_AGENT_RECORD) {
  writeFileSync(env.FAKE_AGENT_RECORD, JSON.stringify({
    stdin,
    promptFile: env.AC_PROMPT_FILE ? readFileSync(env.AC_PROMPT_FILE, 'utf8') : null,
    promptFileInCwd: env.AC_PROMPT_FILE ? env.AC_PROMPT_FILE.startsWith(process.cwd()) : null,
    cwd: process.cwd(),
    ghToken: env.GH_TOKEN ?? null,
    githubToken: env.GITHUB_TOKEN ?? null,
    githubEnv: env.GITHUB_ENV ?? null,
    idTokenUrl: env.ACTIONS_ID_TOKEN_REQUEST_URL ?? null,
    anthropicApiKey: env.ANTHROPIC_API_KEY ?? null,
    anthropicBaseUrl: env.ANTHROPIC_BASE_URL ?? null,
    inputs: Object.keys(env).filter((k) => k.startsWith('INPUT_')),
    isSandbox: env.IS_SANDBOX ?? null,
    // The files FAKE_AGENT_LOOK names (a JSON list) as the agent found them.
    seen: env.FAKE_AGENT_LOOK
      ? Object.fromEntries(JSON.parse(env.FAKE_AGENT_LOOK).map((f) => [f, existsSync(f) ? readFileSync(f, 'utf8') : null]))
      : null,
  }));
}
const report = (result, extra = {}) =>
  console.log(JSON.stringify({
    type: 'result', subtype: 'success', is_error: false, result,
    total_cost_usd: 0.25, usage: { input_tokens: 1000, output_tokens: 200 }, ...extra,
  }));

// The worker tells the agent its attempt in the prompt, as it tells Claude Code.
const attempt = /attempt (\d+)/.exec(stdin)?.[1];

switch (env.FAKE_AGENT) {
  case 'write':
    writeFileSync('feature.txt', 'attempt ' + attempt + '\n');
    report('Added feature.txt for attempt ' + attempt + '.');
    break;
  case 'workflow':
    mkdirSync('.github/workflows', { recursive: true });
    writeFileSync('.github/workflows/ci.yml', 'on: push\n');
    writeFileSync('feature.txt', 'with a workflow\n');
    report('Added a CI workflow.');
    break;
  case 'max_turns':
    // What Claude Code 2.x prints (--output-format json) when it runs out of turns, exit 1.
    writeFileSync('feature.txt', 'half done\n');
    console.log(JSON.stringify({
      type: 'result', subtype: 'error_max_turns', is_error: true, num_turns: 3,
      duration_ms: 1200, duration_api_ms: 1000, stop_reason: null, total_cost_usd: 0.5,
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
      modelUsage: {}, permission_denials: [], errors: ['Reached maximum number of turns (3)'],
    }));
    process.exit(1);
  case 'nothing':
    report('Nothing needed changing.');
    break;
  case 'plain':
    writeFileSync('plain.txt', 'plain\n');
    console.log('done, no JSON here');
    break;
  case 'fail':
    writeFileSync('feature.txt', 'half done\n');
    console.error('something broke');
    process.exit(3);
  case 'hang': {
    // A grandchild in the same process group, holding our stdout, like a dev server would.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'inherit', 'inherit'] });
    writeFileSync(env.FAKE_AGENT_PIDS, JSON.stringify([process.pid, child.pid]));
    setInterval(() => {}, 1000);
    break;
  }
  case 'write_then_hang':
    // Work done, then never finishing: the worker must stop it at its deadline and keep this.
    writeFileSync('feature.txt', 'partial work of attempt ' + attempt + '\n');
    console.log('FAKE_AGENT_READY');
    setInterval(() => {}, 1000);
    break;
  case 'files':
    // FAKE_AGENT_FILES (a JSON object) as path → content; null removes the file.
    for (const [file, content] of Object.entries(JSON.parse(env.FAKE_AGENT_FILES))) {
      if (content === null) {
        rmSync(file, { force: true });
        continue;
      }
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
    report('Wrote ' + Object.keys(JSON.parse(env.FAKE_AGENT_FILES)).join(', '));
    break;
  case 'fifos': {
    // Work done, then a FIFO wherever the worker (or git, for it) might read a file after it:
    // reading one waits for a writer that never comes.
    writeFileSync('feature.txt', 'attempt ' + attempt + '\n');
    const fifo = (path) => {
      rmSync(path, { force: true });
      if (spawnSync('mkfifo', [path]).status !== 0) process.exit(8);
    };
    mkdirSync('.git/objects/info', { recursive: true });
    fifo('.git/objects/info/alternates');
    fifo('.git/MERGE_HEAD');
    mkdirSync('sub', { recursive: true });
    writeFileSync('sub/kept.txt', 'kept\n');
    fifo('sub/.gitignore');
    fifo('.gitattributes');
    fifo('pipe');
    for (const dir of ['nested/.git/objects', 'nested/.git/refs']) mkdirSync(dir, { recursive: true });
    fifo('nested/.git/HEAD');
    report('Added feature.txt, and FIFOs.');
    break;
  }
  case 'resolve': {
    const files = stdin.split('\n').filter((l) => l.startsWith('- ')).map((l) => l.slice(2));
    for (const f of files) writeFileSync(f, 'line 1\nresolved line\nline 3\n');
    report('Resolved ' + files.join(', '));
    break;
  }
  case 'plan':
    report(env.FAKE_PLAN);
    break;
  default:
    console.error('unknown FAKE_AGENT ' + env.FAKE_AGENT);
    process.exit(9);
}
`;

export function writeFakeAgent(dir: string): { command: string; path: string } {
  const path = join(dir, 'fake-agent.mjs');
  writeFileSync(path, SCRIPT);
  return { path, command: `"${process.execPath}" "${path}"` };
}
