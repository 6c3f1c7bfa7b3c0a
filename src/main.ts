import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startCoordinator } from './coordinator.js';
import { credentialsFile, EnvError, parseEnv } from './env.js';
import { createLogger } from './logger.js';
import { ensureWritableDir } from './setup/env-file.js';

async function main(): Promise<void> {
  // Variables already set win over both files; the operator's own .env in the working directory
  // over the credentials the setup flow wrote under DATA_DIR (docs/running.md "Setup mode").
  const ownEnvFile = join(process.cwd(), '.env');
  if (existsSync(ownEnvFile)) process.loadEnvFile(ownEnvFile);
  const envFile = credentialsFile(process.env);
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  let env;
  try {
    env = parseEnv(process.env);
    // GitHub's code converts once: find out now, not after it is spent, that DATA_DIR is read-only.
    if (env.appId === undefined || env.privateKey === undefined)
      ensureWritableDir('DATA_DIR', dirname(envFile));
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(`agent-coordinator: ${error.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const log = createLogger({ level: env.logLevel });

  if (env.appId === undefined || env.privateKey === undefined) {
    // Not registered yet: the setup flow registers the App from app.yml and writes envFile.
    log.info('APP_ID or PRIVATE_KEY missing: starting the GitHub App setup flow');
    const { startSetupServer } = await import('./setup/server.js');
    const setup = await startSetupServer({
      env,
      organization: process.env.GH_ORG?.trim() || undefined,
      token: process.env.SETUP_TOKEN,
      envFile,
      log,
    });
    onSignal(async () => setup.close());
    return;
  }

  const coordinator = await startCoordinator({
    env: { ...env, appId: env.appId, privateKey: env.privateKey },
    log,
  });
  onSignal(async (signal) => {
    log.info({ signal }, 'shutting down: finishing in-flight deliveries');
    await coordinator.close();
  });
}

function onSignal(close: (signal: string) => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    await close(signal);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('agent-coordinator failed to start:', error);
  process.exit(1);
});
