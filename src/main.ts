import { run } from 'probot';
import { startCoordinator } from './coordinator.js';
import { EnvError, parseEnv } from './env.js';
import { createLogger } from './logger.js';

async function main(): Promise<void> {
  let env;
  try {
    env = parseEnv(process.env);
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(`agent-coordinator: ${error.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const log = createLogger({ level: env.logLevel });

  if (env.appId === undefined || env.privateKey === undefined) {
    // Not registered yet: Probot's setup flow creates the App from app.yml and writes .env.
    log.info('APP_ID or PRIVATE_KEY missing: starting the GitHub App setup flow');
    await run(() => {}, { env: { ...process.env, PORT: String(env.port), HOST: env.host } });
    return;
  }

  const coordinator = await startCoordinator({
    env: { ...env, appId: env.appId, privateKey: env.privateKey },
    log,
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight deliveries');
    await coordinator.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('agent-coordinator failed to start:', error);
  process.exit(1);
});
