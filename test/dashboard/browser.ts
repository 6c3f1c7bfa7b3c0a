import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { inject } from 'vitest';

/** CHROMIUM_PATH, or @sparticuz/chromium's headless Chromium (test/global-setup.ts). */
const CHROMIUM = inject('chromiumPath');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Chromium driven by playwright-core. A missing browser fails the test with the fix: the
 * browser tests never skip silently.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: set CHROMIUM_PATH to a Chromium, or unset it to use @sparticuz/chromium's`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}
