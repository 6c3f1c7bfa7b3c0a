import type { TestProject } from 'vitest/node';
import { prepareTemplateDatabase } from './helpers/postgres.js';

/** One migrated template per test run; every test file clones it into a fresh database. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const template = await prepareTemplateDatabase();
  project.provide('templateDatabase', template);
  return async () => {};
}

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}
