import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/package-root.js';
import { agentEnv, agentLaunch, defaultAgentArgv } from '../../src/worker/agent.js';
import { parseAgentOutput } from '../../src/worker/agent-output.js';
import { startApiKeyProxy } from '../../src/worker/api-key-proxy.js';

/**
 * The agent CLI the template installs, at the version it pins, still takes every flag the
 * worker passes it (src/worker/agent.ts). The CLI is an exact devDependency, so this runs the
 * very version users' runners install, without an API key: its Messages API is a local server
 * that refuses every request, which the CLI reports as an error result after parsing its
 * options (an unknown or misspelled option stops it before that, with "unknown option").
 */
const CLI_PACKAGE = '@anthropic-ai/claude-code';
const SDK_PACKAGE = '@anthropic-ai/claude-agent-sdk';

interface PackageJson {
  version: string;
  bin?: Record<string, string>;
  claudeCodeVersion?: string;
  devDependencies: Record<string, string>;
}
const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as PackageJson;

const template = await readFile(join(packageRoot(), 'templates/agent-worker.yml'), 'utf8');
const pinned = /npm install -g @anthropic-ai\/claude-code@(\S+)/.exec(template)?.[1];
const ours = await readJson(join(packageRoot(), 'package.json'));
// The SDK's exports do not include its package.json: both are read where npm installs them.
const installed = (name: string) => join(packageRoot(), 'node_modules', name);
const cli = await readJson(join(installed(CLI_PACKAGE), 'package.json'));
const sdk = await readJson(join(installed(SDK_PACKAGE), 'package.json'));
const claude = join(installed(CLI_PACKAGE), cli.bin!['claude']!);

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('the pinned agent CLI', () => {
  let api: Server;
  let home: string;
  let baseUrl: string;
  /** The API key of each request the stand-in heard. */
  const keys: (string | undefined)[] = [];
  /** The Authorization header of each request the stand-in heard. */
  const authorizations: (string | undefined)[] = [];
  /** The gateway header (`cf-aig-authorization`) of each request the stand-in heard. */
  const gateways: (string | undefined)[] = [];
  /** The method and target of each request the stand-in heard. */
  const targets: string[] = [];
  beforeAll(async () => {
    // Every Messages API call refused as a bad request, which the CLI does not retry.
    api = createServer((req, res) => {
      keys.push(req.headers['x-api-key'] as string | undefined);
      authorizations.push(req.headers.authorization);
      gateways.push(req.headers['cf-aig-authorization'] as string | undefined);
      targets.push(`${req.method} ${req.url}`);
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'invalid_request_error', message: 'invalid x-api-key' },
        }),
      );
    }).listen(0, '127.0.0.1');
    await once(api, 'listening');
    baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    home = await mkdtemp(join(tmpdir(), 'agent-cli-home-'));
  });
  afterAll(async () => {
    api?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  /** Runs the CLI with no credential but an invalid key, against the refusing server. */
  const run = async (args: string[], env: NodeJS.ProcessEnv = {}): Promise<Exit> => {
    const child = spawn(claude, args, {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_API_KEY: 'sk-ant-invalid',
        ANTHROPIC_BASE_URL: baseUrl,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end('Say hello.\n');
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, stdout, stderr };
  };

  it('is the version the template installs, and the agent SDK is the one published with it', () => {
    expect(pinned, 'templates/agent-worker.yml installs no pinned Claude Code').toMatch(
      /^\d+\.\d+\.\d+$/,
    );
    expect(ours.devDependencies[CLI_PACKAGE]).toBe(pinned);
    expect(cli.version).toBe(pinned);
    expect(sdk.claudeCodeVersion).toBe(pinned);
    expect(ours.devDependencies[SDK_PACKAGE]).toBe(sdk.version);
  });

  it("lists in --help each flag the worker passes, except --max-turns, which it doesn't document", async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    const flags = defaultAgentArgv({ model: 'claude-sonnet-4-5', maxTurns: 3 }).filter((a) =>
      a.startsWith('-'),
    );
    expect(flags).toEqual(['-p', '--output-format', '--permission-mode', '--model', '--max-turns']);
    const listed = flags.filter((flag) =>
      new RegExp(`^\\s+(?:-\\w, )?${flag}\\b|^\\s+${flag}, `, 'm').test(help.stdout),
    );
    expect(listed).toEqual(['-p', '--output-format', '--permission-mode', '--model']);
    // The value the worker gives --permission-mode is one of its documented choices.
    expect(help.stdout).toMatch(/--permission-mode[\s\S]*?"bypassPermissions"/);
  });

  it('validates --max-turns as a known option that takes a number', async () => {
    const bad = await run(['-p', '--max-turns', 'many']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("option '--max-turns <turns>' argument 'many' is invalid");
    // What the same CLI says of an option it does not know, which the worker's flags never get.
    const unknown = await run(['-p', '--max-turnz', '3']);
    expect(unknown.stderr).toContain("unknown option '--max-turnz'");
  });

  it("runs the worker's own command line to a result the parser reads", async () => {
    const launch = agentLaunch({ model: 'claude-sonnet-4-5', maxTurns: 3 });
    const [command, ...args] = launch.argv;
    expect(command).toBe('claude');
    const started = performance.now();
    const result = await run(args, launch.env);
    const seconds = (performance.now() - started) / 1000;
    expect(result.stderr).not.toMatch(/unknown option|is invalid|error: /i);
    expect(result.code).toBe(1);
    // The API refused it: an error result, in the JSON the worker asked for.
    const report = parseAgentOutput(result.stdout);
    expect(report).toMatchObject({ structured: true, isError: true });
    expect(report.result).toMatch(/API key/i);
    expect(report.usage).toEqual({ costUsd: 0, inputTokens: 0, outputTokens: 0 });
    expect(seconds).toBeLessThan(15);
  });

  it("reaches its API through the worker's key proxy, which sends the key the agent never holds", async () => {
    const realKey = 'sk-ant-api03-held-by-the-worker';
    const proxy = (await startApiKeyProxy({
      ANTHROPIC_API_KEY: realKey,
      ANTHROPIC_BASE_URL: baseUrl,
    }))!;
    try {
      keys.length = 0;
      const launch = agentLaunch({ model: 'claude-sonnet-4-5', maxTurns: 3 });
      const result = await run(launch.argv.slice(1), { ...launch.env, ...proxy.env });
      expect(parseAgentOutput(result.stdout)).toMatchObject({ structured: true, isError: true });
      expect(keys.length).toBeGreaterThan(0);
      expect(new Set(keys)).toEqual(new Set([realKey]));
    } finally {
      await proxy.close();
    }
  });

  // docs/worker.md, "The agent's network": the proxy variables point at the worker's egress proxy
  // (here a port nothing answers on), and the key proxy forwards only Messages requests that
  // have the API fetch nothing.
  it('reaches its API through the key proxy on a closed network, past its proxy variables', async () => {
    const realKey = 'sk-ant-api03-held-by-the-worker';
    const proxy = (await startApiKeyProxy(
      { ANTHROPIC_API_KEY: realKey, ANTHROPIC_BASE_URL: baseUrl },
      { closedNetwork: true },
    ))!;
    try {
      keys.length = 0;
      targets.length = 0;
      const egress = 'http://127.0.0.1:9';
      const launch = agentLaunch({ model: 'claude-sonnet-4-5', maxTurns: 3 });
      const result = await run(launch.argv.slice(1), {
        ...launch.env,
        ...proxy.env,
        HTTPS_PROXY: egress,
        HTTP_PROXY: egress,
        https_proxy: egress,
        http_proxy: egress,
        NO_PROXY: '127.0.0.1,localhost,::1',
        no_proxy: '127.0.0.1,localhost,::1',
      });
      expect(parseAgentOutput(result.stdout)).toMatchObject({ structured: true, isError: true });
      expect(targets.filter((t) => t.startsWith('POST /v1/messages')).length).toBeGreaterThan(0);
      expect(new Set(keys)).toEqual(new Set([realKey]));
    } finally {
      await proxy.close();
    }
  });

  it.each([
    ['CLAUDE_CODE_OAUTH_TOKEN', 'sk-ant-oat01-subscription-held-by-the-worker'],
    ['ANTHROPIC_AUTH_TOKEN', 'gateway-token-held-by-the-worker'],
  ])(
    "sends %s through the worker's proxy, which sends the token the agent never holds",
    async (name, realToken) => {
      const jobEnv = { [name]: realToken, ANTHROPIC_BASE_URL: baseUrl };
      const proxy = (await startApiKeyProxy(jobEnv))!;
      try {
        keys.length = 0;
        authorizations.length = 0;
        // What runAgent gives the agent (src/worker/agent.ts).
        const env = agentEnv({ ...jobEnv, ...proxy.env }, join(home, 'prompt.md'));
        expect(JSON.stringify(env)).not.toContain(realToken);
        const launch = agentLaunch({ model: 'claude-sonnet-4-5', maxTurns: 3 });
        // Without the stand-in's API key, which Claude Code would send instead of a token.
        const result = await run(launch.argv.slice(1), {
          ...launch.env,
          ...env,
          ANTHROPIC_API_KEY: undefined,
        });
        expect(parseAgentOutput(result.stdout)).toMatchObject({ structured: true, isError: true });
        expect(authorizations.length).toBeGreaterThan(0);
        expect(new Set(authorizations)).toEqual(new Set([`Bearer ${realToken}`]));
        expect(new Set(keys)).toEqual(new Set([undefined]));
      } finally {
        await proxy.close();
      }
    },
  );

  it("sends a gateway's custom header through the worker's proxy, which the agent never holds", async () => {
    const gateway = 'Bearer gateway-secret-held-by-the-worker';
    const jobEnv = {
      ANTHROPIC_API_KEY: 'sk-ant-api03-held-by-the-worker',
      ANTHROPIC_CUSTOM_HEADERS: `cf-aig-authorization: ${gateway}\n`,
      ANTHROPIC_BASE_URL: baseUrl,
    };
    const proxy = (await startApiKeyProxy(jobEnv))!;
    try {
      gateways.length = 0;
      const env = agentEnv({ ...jobEnv, ...proxy.env }, join(home, 'prompt.md'));
      expect(JSON.stringify(env)).not.toContain('gateway-secret');
      const launch = agentLaunch({ model: 'claude-sonnet-4-5', maxTurns: 3 });
      const result = await run(launch.argv.slice(1), { ...launch.env, ...env });
      expect(parseAgentOutput(result.stdout)).toMatchObject({ structured: true, isError: true });
      expect(gateways.length).toBeGreaterThan(0);
      expect(new Set(gateways)).toEqual(new Set([gateway]));
    } finally {
      await proxy.close();
    }
  });
});
