import { defineConfig } from 'vitest/config';

/**
 * `npm run test:chaos`: the crash test at every crash point (`npm test` runs a few of them).
 * Each point is a full SPEC §3 run with real coordinator processes; they run five at a time.
 */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    env: { CHAOS_FULL: '1' },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
