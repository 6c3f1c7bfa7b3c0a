import type { attempts } from '../../db/schema.js';

/**
 * An attempt as stored. Declared apart from the attempt store (attempts.ts), which reads runs and
 * tasks through runs.ts, so that runs.ts can name attempts without importing it back.
 */
export type AttemptRow = typeof attempts.$inferSelect;
