import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialsFile, EnvError, parseEnv } from '../../src/env.js';

const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();

function problems(env: NodeJS.ProcessEnv, readFile?: (p: string) => string): string[] {
  try {
    parseEnv(env, readFile);
    return [];
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
}

describe('environment', () => {
  it('fills defaults for a bare development environment', () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      production: false,
      webhookSecret: 'development',
      dataDir: '.data',
      port: 3000,
      host: 'localhost',
      logLevel: 'info',
      maxParallel: Number.POSITIVE_INFINITY,
      databaseUrl: undefined,
      githubBaseUrl: undefined,
    });
  });

  it('reads every variable it documents', () => {
    const env = parseEnv({
      APP_ID: '12345',
      PRIVATE_KEY: pem,
      WEBHOOK_SECRET: 's3cret',
      DATABASE_URL: 'postgres://u@db:5432/ac',
      DIRECT_DATABASE_URL: 'postgres://u@db-direct:5432/ac',
      DATA_DIR: '/var/lib/ac',
      PORT: '8080',
      HOST: '0.0.0.0',
      LOG_LEVEL: 'debug',
      GHE_HOST: 'github.example.com:8443',
      GHE_PROTOCOL: 'http',
      COORDINATOR_MAX_PARALLEL: '2000',
    });
    expect(env).toMatchObject({
      appId: 12345,
      privateKey: pem,
      webhookSecret: 's3cret',
      databaseUrl: 'postgres://u@db:5432/ac',
      directDatabaseUrl: 'postgres://u@db-direct:5432/ac',
      dataDir: '/var/lib/ac',
      port: 8080,
      host: '0.0.0.0',
      logLevel: 'debug',
      githubBaseUrl: 'http://github.example.com:8443/api/v3',
      maxParallel: 2000,
    });
  });

  it('accepts a base64 or one-line private key and PRIVATE_KEY_PATH', () => {
    expect(parseEnv({ PRIVATE_KEY: Buffer.from(pem).toString('base64') }).privateKey).toBe(pem);
    expect(parseEnv({ PRIVATE_KEY: pem.replace(/\n/g, '\\n') }).privateKey).toBe(pem);
    expect(parseEnv({ PRIVATE_KEY_PATH: '/k.pem' }, () => pem).privateKey).toBe(pem);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT: expected a whole number from 0 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'PORT: expected at most 65535 (got "70000")'],
    [{ APP_ID: 'my-app' }, 'APP_ID: expected the numeric App ID (got "my-app")'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL: expected a postgres:// or postgresql:// URL'],
    [
      { DATABASE_URL: 'postgres://u@pooler/ac', DIRECT_DATABASE_URL: 'mysql://x' },
      'DIRECT_DATABASE_URL: expected a postgres:// or postgresql:// URL',
    ],
    [
      { DIRECT_DATABASE_URL: 'postgres://u@db/ac' },
      'DIRECT_DATABASE_URL: set only with DATABASE_URL',
    ],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL:'],
    [{ GHE_HOST: 'https://ghe.example.com' }, 'GHE_HOST: expected a host name'],
    [{ GHE_PROTOCOL: 'ftp' }, 'GHE_PROTOCOL:'],
    [{ COORDINATOR_MAX_PARALLEL: '0' }, 'COORDINATOR_MAX_PARALLEL: expected at least 1'],
    [{ PRIVATE_KEY: 'not a key' }, 'PRIVATE_KEY: expected a PEM private key'],
  ] as Array<[NodeJS.ProcessEnv, string]>)('rejects %o naming the variable', (env, message) => {
    const found = problems(env);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(message);
  });

  it('names an unreadable PRIVATE_KEY_PATH', () => {
    expect(
      problems({ PRIVATE_KEY_PATH: '/nope.pem' }, () => {
        throw new Error('ENOENT');
      }),
    ).toEqual(['PRIVATE_KEY_PATH: cannot read /nope.pem (ENOENT)']);
  });

  it('refuses production with the default webhook secret, and says why', () => {
    const found = problems({ NODE_ENV: 'production', APP_ID: '1', PRIVATE_KEY: pem });
    expect(found).toEqual([
      'WEBHOOK_SECRET: must be set to the App\'s webhook secret in production; the default "development" would accept forged webhooks',
    ]);
    expect(
      problems({
        NODE_ENV: 'production',
        APP_ID: '1',
        PRIVATE_KEY: pem,
        WEBHOOK_SECRET: 'development',
      }),
    ).toHaveLength(1);
    expect(
      problems({ NODE_ENV: 'production', APP_ID: '1', PRIVATE_KEY: pem, WEBHOOK_SECRET: 'x9' }),
    ).toEqual([]);
  });

  it('requires the rest of the App credentials in production once one of them is set', () => {
    expect(problems({ NODE_ENV: 'production', APP_ID: '1', WEBHOOK_SECRET: 'x9' })).toEqual([
      'PRIVATE_KEY: required in production (or PRIVATE_KEY_PATH)',
    ]);
    expect(problems({ NODE_ENV: 'production', PRIVATE_KEY: pem })).toEqual([
      'WEBHOOK_SECRET: must be set to the App\'s webhook secret in production; the default "development" would accept forged webhooks',
      'APP_ID: required in production',
    ]);
  });

  it('starts setup mode in production when no App credential is set at all', () => {
    // The image sets NODE_ENV=production and is registered through the setup flow.
    const env = parseEnv({ NODE_ENV: 'production' });
    expect(env).toMatchObject({ production: true, appId: undefined, privateKey: undefined });
  });

  it("keeps the setup flow's credentials in DATA_DIR", () => {
    expect(credentialsFile({})).toBe(join('.data', '.env'));
    expect(credentialsFile({ DATA_DIR: '/data' })).toBe('/data/.env');
  });

  it('reads the URLs the setup flow registers as the webhook URL, and names bad ones', () => {
    expect(
      parseEnv({
        PUBLIC_URL: 'https://coordinator.example.com/',
        WEBHOOK_PROXY_URL: 'https://smee.io/abc123',
      }),
    ).toMatchObject({
      publicUrl: 'https://coordinator.example.com',
      webhookProxyUrl: 'https://smee.io/abc123',
    });
    expect(
      problems({ PUBLIC_URL: 'coordinator.example.com', WEBHOOK_PROXY_URL: 'ftp://x' }),
    ).toEqual([
      'PUBLIC_URL: expected the http(s) base URL at which GitHub and the Actions runners reach the app (got "coordinator.example.com")',
      'WEBHOOK_PROXY_URL: expected an http:// or https:// URL (got "ftp://x")',
    ]);
  });

  it('never echoes a secret value in its errors', () => {
    const found = problems({ DATABASE_URL: 'mysql://user:hunter2@db/x', PRIVATE_KEY: 'hunter2' });
    expect(found.join('\n')).not.toContain('hunter2');
  });
});
