import type { TestProject } from 'vitest/node';
import { dropDatabase, prepareTemplateDatabase } from './helpers/postgres.js';
import { npmChromium } from './helpers/npm-chromium.js';
import { preparePgliteTemplate } from './helpers/pglite.js';
import { chromiumLibraries, DEBIAN_TEST_TOOLS, ensureTestTools } from './helpers/test-tools.js';

/**
 * Before any test: the programs the tests run (installed from Debian when missing and allowed,
 * else a clear failure), the Chromium the browser tests drive, one migrated template
 * database that every test file clones into a fresh database, and one migrated PGlite data
 * directory that every in-memory PGlite starts from. Both are removed when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const chromium = process.env.CHROMIUM_PATH;
  const chromiumPath = chromium ?? npmChromium();
  ensureTestTools({
    tools: chromium ? DEBIAN_TEST_TOOLS : [...DEBIAN_TEST_TOOLS, chromiumLibraries(chromiumPath)],
  });
  project.provide('chromiumPath', chromiumPath);
  const template = await prepareTemplateDatabase();
  project.provide('templateDatabase', template);
  const pglite = await preparePgliteTemplate();
  project.provide('pgliteTemplate', pglite.path);
  return async () => {
    await pglite.remove();
    await dropDatabase(template);
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    /** A migrated PGlite data directory, dumped (test/helpers/pglite.ts). */
    pgliteTemplate: string;
    /** CHROMIUM_PATH, or @sparticuz/chromium's binary inflated once (npm-chromium.ts). */
    chromiumPath: string;
  }
}
