import type { PlanError, PlanErrorCode } from './types.js';
import { MAX_ERRORS } from './types.js';
import type { Locator } from './yaml-nodes.js';

export interface Where {
  path?: string;
  taskId?: string;
  /** A yaml node (or anything with a `range`) whose start is the error's position. */
  node?: unknown;
  cycle?: string[];
}

/** Collects errors; properties a caller did not give are absent, not undefined. */
export class ErrorList {
  readonly items: PlanError[] = [];

  constructor(private readonly locator: Locator) {}

  add(code: PlanErrorCode, message: string, where: Where = {}): void {
    const error: PlanError = { code, message };
    if (where.taskId !== undefined) error.taskId = where.taskId;
    if (where.path !== undefined) error.path = where.path;
    const pos = where.node === undefined ? undefined : this.locator.of(where.node);
    if (pos) {
      error.line = pos.line;
      error.column = pos.column;
    }
    if (where.cycle) error.cycle = where.cycle;
    this.items.push(error);
  }

  get length(): number {
    return this.items.length;
  }
}

/** Errors without a position (whole-plan problems) first, then by line and column; capped. */
export function finishErrors(errors: PlanError[]): PlanError[] {
  return errors
    .map((error, i) => ({ error, i }))
    .sort(
      (a, b) =>
        (a.error.line ?? 0) - (b.error.line ?? 0) ||
        (a.error.column ?? 0) - (b.error.column ?? 0) ||
        a.i - b.i,
    )
    .slice(0, MAX_ERRORS)
    .map(({ error }) => error);
}
