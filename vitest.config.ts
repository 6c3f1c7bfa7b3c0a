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
    // Each worker runs its test files one after another in one module graph instead of a fresh one
    // per file: most files import the whole app (Probot, Octokit, drizzle, pg), and importing it
    // again for each of ~300 files took a fifth of the run. Tests share no module state: every app,
    // database, double and metrics registry is made per test, and none mocks a module or stubs the
    // environment (test/security alone: 302 s isolated, 213 s not, on 2 cores).
    isolate: false,
    hookTimeout: 60_000,
  },
});
