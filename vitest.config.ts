import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    // Vitest's default is one worker fewer than the CPUs: one on a 2-core CI machine. Most test
    // files wait on Postgres, git and child processes rather than compute, so two share two
    // cores well.
    maxWorkers: 2,
    hookTimeout: 60_000,
  },
});
