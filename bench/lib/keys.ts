import { generateKeyPairSync } from 'node:crypto';

/** A throwaway App key: the GitHub double and the stub accept any RSA key for the App JWT. */
export function benchPrivateKey(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs1', format: 'pem' })
    .toString();
}

export const BENCH_APP_ID = 4242;
export const BENCH_WEBHOOK_SECRET = 'bench-webhook-secret';
