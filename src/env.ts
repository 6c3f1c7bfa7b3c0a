import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { normalizePublicUrl } from './github/public-url.js';

/** Probot's default; a production app must never accept webhooks signed with it. */
export const DEVELOPMENT_WEBHOOK_SECRET = 'development';

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

const optionalUrl = optionalText.pipe(
  z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }).optional(),
);

const integerIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `expected a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(
      z.number().int().min(min, `expected at least ${min}`).max(max, `expected at most ${max}`),
    );

const dataDirSchema = z.string().default('.data');
const postgresUrl = optionalText.pipe(
  z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')
    .optional(),
);

const envSchema = z.object({
  NODE_ENV: optionalText,
  APP_ID: optionalText.pipe(z.string().regex(/^\d+$/, 'expected the numeric App ID').optional()),
  PRIVATE_KEY: optionalText,
  PRIVATE_KEY_PATH: optionalText,
  WEBHOOK_SECRET: optionalText,
  DATABASE_URL: postgresUrl,
  DIRECT_DATABASE_URL: postgresUrl,
  PUBLIC_URL: optionalText.pipe(
    z
      .url({
        protocol: /^https?$/,
        error:
          'expected the http(s) base URL at which GitHub and the Actions runners reach the app',
      })
      .refine((u) => !/[?#]/.test(u), 'expected a base URL without query or fragment')
      .optional(),
  ),
  DATA_DIR: dataDirSchema,
  PORT: integerIn(0, 65535).default(3000),
  HOST: z.string().min(1).default('localhost'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  WEBHOOK_PROXY_URL: optionalUrl,
  GHE_HOST: optionalText.pipe(
    z
      .string()
      .regex(/^[^/\s]+$/, 'expected a host name (and port), without protocol or path')
      .optional(),
  ),
  GHE_PROTOCOL: z.enum(['http', 'https']).default('https'),
  COORDINATOR_MAX_PARALLEL: integerIn(1, 1_000_000).optional(),
  SWEEP_SCHEDULE: z.string().default('* * * * *'),
  DASHBOARD_TOKEN: optionalText.pipe(
    z
      .string()
      .min(16, 'expected at least 16 characters (for example `openssl rand -hex 32`)')
      .regex(/^[\x21-\x7e]+$/, 'expected printable ASCII without spaces')
      .optional(),
  ),
});

export interface AppEnv {
  production: boolean;
  appId?: number;
  privateKey?: string;
  webhookSecret: string;
  databaseUrl?: string;
  /** Set when DATABASE_URL goes through a transaction-mode pooler: the same database, direct. */
  directDatabaseUrl?: string;
  /** Where GitHub and the runners reach the app, without a trailing slash; unset → from `GET /app/hook/config`. */
  publicUrl?: string;
  /** GitHub's web origin (`<GHE_PROTOCOL>://<GHE_HOST>`) on GitHub Enterprise; undefined means github.com. */
  gheOrigin?: string;
  dataDir: string;
  port: number;
  host: string;
  logLevel: (typeof LOG_LEVELS)[number];
  /** A webhook proxy channel (smee.io) GitHub delivers to during local development. */
  webhookProxyUrl?: string;
  /** GitHub REST base URL; undefined means api.github.com. */
  githubBaseUrl?: string;
  maxParallel: number;
  sweepSchedule: string;
  /** Serves /dashboard to requests carrying it; unset → no dashboard (404). */
  dashboardToken?: string;
}

/**
 * The env file the setup flow writes the App's credentials to, and the app reads them back from
 * at start: `.env` in `DATA_DIR`, the one directory the image's `node` user may write
 * (docs/running.md "Setup mode"). Read before the rest of the environment is checked, since the
 * file completes it.
 */
export function credentialsFile(raw: NodeJS.ProcessEnv): string {
  return join(dataDirSchema.parse(raw['DATA_DIR']), '.env');
}

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'EnvError';
  }
}

type ReadFile = (path: string) => string;

/** Parse and check the environment once at start; every error names its variable. */
export function parseEnv(
  raw: NodeJS.ProcessEnv,
  readFile: ReadFile = (p) => readFileSync(p, 'utf8'),
): AppEnv {
  const parsed = envSchema.safeParse(raw);
  if (!parsed.success) {
    throw new EnvError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? 'environment');
        const value = raw[name];
        const shown =
          value === undefined || /KEY|SECRET|TOKEN|DATABASE_URL/.test(name)
            ? ''
            : ` (got "${value}")`;
        return `${name}: ${issue.message}${shown}`;
      }),
    );
  }
  const env = parsed.data;
  const problems: string[] = [];
  const production = env.NODE_ENV === 'production';

  let privateKey: string | undefined;
  if (env.PRIVATE_KEY) {
    privateKey = normalizePrivateKey(env.PRIVATE_KEY);
    if (!privateKey)
      problems.push('PRIVATE_KEY: expected a PEM private key (or its base64 encoding)');
  } else if (env.PRIVATE_KEY_PATH) {
    try {
      privateKey = normalizePrivateKey(readFile(env.PRIVATE_KEY_PATH));
      if (!privateKey)
        problems.push(`PRIVATE_KEY_PATH: ${env.PRIVATE_KEY_PATH} does not hold a PEM private key`);
    } catch (error) {
      problems.push(
        `PRIVATE_KEY_PATH: cannot read ${env.PRIVATE_KEY_PATH} (${(error as Error).message})`,
      );
    }
  }

  const webhookSecret = env.WEBHOOK_SECRET ?? DEVELOPMENT_WEBHOOK_SECRET;
  // With no App credentials at all the app serves only the setup flow, which accepts no webhooks:
  // the image (NODE_ENV=production) starts that way to be registered (docs/running.md "Setup mode").
  const setupMode = !env.APP_ID && !env.PRIVATE_KEY && !env.PRIVATE_KEY_PATH;
  if (production && !setupMode && webhookSecret === DEVELOPMENT_WEBHOOK_SECRET) {
    problems.push(
      `WEBHOOK_SECRET: must be set to the App's webhook secret in production; the default "${DEVELOPMENT_WEBHOOK_SECRET}" would accept forged webhooks`,
    );
  }
  if (production && !setupMode && (!env.APP_ID || !privateKey)) {
    if (!env.APP_ID) problems.push('APP_ID: required in production');
    if (!privateKey && !env.PRIVATE_KEY && !env.PRIVATE_KEY_PATH)
      problems.push('PRIVATE_KEY: required in production (or PRIVATE_KEY_PATH)');
  }
  if (env.DIRECT_DATABASE_URL && !env.DATABASE_URL)
    problems.push(
      'DIRECT_DATABASE_URL: set only with DATABASE_URL (the pooled URL it bypasses for what needs a session)',
    );
  if (problems.length > 0) throw new EnvError(problems);

  return {
    production,
    appId: env.APP_ID ? Number(env.APP_ID) : undefined,
    privateKey,
    webhookSecret,
    databaseUrl: env.DATABASE_URL,
    directDatabaseUrl: env.DIRECT_DATABASE_URL,
    publicUrl: env.PUBLIC_URL ? normalizePublicUrl(env.PUBLIC_URL) : undefined,
    gheOrigin: env.GHE_HOST ? `${env.GHE_PROTOCOL}://${env.GHE_HOST}` : undefined,
    dataDir: env.DATA_DIR,
    port: env.PORT,
    host: env.HOST,
    logLevel: env.LOG_LEVEL,
    webhookProxyUrl: env.WEBHOOK_PROXY_URL,
    githubBaseUrl: env.GHE_HOST ? `${env.GHE_PROTOCOL}://${env.GHE_HOST}/api/v3` : undefined,
    maxParallel: env.COORDINATOR_MAX_PARALLEL ?? Number.POSITIVE_INFINITY,
    sweepSchedule: env.SWEEP_SCHEDULE,
    dashboardToken: env.DASHBOARD_TOKEN,
  };
}

/** Accept a PEM, a PEM with literal "\n" (one-line env files), or its base64 encoding. */
function normalizePrivateKey(value: string): string | undefined {
  const pem = value.includes('-----BEGIN')
    ? value.replace(/\\n/g, '\n')
    : Buffer.from(value, 'base64').toString('utf8');
  return /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem) ? pem : undefined;
}
