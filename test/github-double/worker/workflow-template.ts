import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * The parts of a workflow file the Actions runner double needs, read from the real file users
 * copy: its jobs, what each needs, its permissions, and its steps with their `if:`, `with:`
 * and `env:` still as expressions.
 */
export interface WorkflowStep {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with: Record<string, string>;
  env: Record<string, string>;
}

export interface WorkflowJob {
  id: string;
  /** The jobs that must succeed first (`needs:`), in the file's order. */
  needs: string[];
  permissions: Record<string, string>;
  steps: WorkflowStep[];
}

const asStrings = (value: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries((value ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
  );

/**
 * Every job of the workflow, in an order that runs each after what it needs. A job-level
 * `if:` or a `needs` on an unknown job is refused: the double never quietly misreads a file.
 */
export function readWorkflowJobs(file: string): WorkflowJob[] {
  const doc = parse(readFileSync(file, 'utf8')) as {
    permissions?: Record<string, string>;
    jobs?: Record<
      string,
      { permissions?: Record<string, string>; steps?: unknown[]; needs?: unknown; if?: unknown }
    >;
  };
  const jobs = Object.entries(doc.jobs ?? {}).map(([id, job]): WorkflowJob => {
    if (job.if !== undefined) throw new Error(`${file}: job ${id}: a job-level if is not modelled`);
    const needs = job.needs === undefined ? [] : [job.needs].flat().map(String);
    const steps = (job.steps ?? []).map((raw) => {
      const s = raw as Record<string, unknown>;
      return {
        name: s['name'] as string | undefined,
        uses: s['uses'] as string | undefined,
        run: s['run'] as string | undefined,
        if: s['if'] === undefined ? undefined : String(s['if']),
        with: asStrings(s['with']),
        env: asStrings(s['env']),
      };
    });
    // A job that declares permissions gets those and none of the workflow's.
    return { id, needs, permissions: job.permissions ?? doc.permissions ?? {}, steps };
  });
  const ordered: WorkflowJob[] = [];
  while (ordered.length < jobs.length) {
    const next = jobs.find(
      (j) => !ordered.includes(j) && j.needs.every((n) => ordered.some((o) => o.id === n)),
    );
    if (!next) throw new Error(`${file}: needs name an unknown job or form a cycle`);
    ordered.push(next);
  }
  return ordered;
}

/** The workflow's `run-name:`, still as an expression. */
export function readRunName(file: string): string {
  const doc = parse(readFileSync(file, 'utf8')) as { 'run-name'?: string };
  return doc['run-name'] ?? '';
}

/** What expressions may read: the contexts a workflow_dispatch job sees. */
export interface ExpressionContext {
  inputs: Record<string, string>;
  vars: Record<string, string>;
  secrets: Record<string, string>;
  github: Record<string, string>;
  runner: Record<string, string>;
}

// The expression subset our template uses: context lookups, string literals, ==, !=, &&, ||, !.
// Anything else is an error, so the double never quietly misreads a workflow.
export function evaluate(expression: string, ctx: ExpressionContext): string | boolean {
  const tokens = expression.match(/'(?:[^']|'')*'|==|!=|&&|\|\||!|\(|\)|[A-Za-z_][\w.-]*/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const next = () => tokens[at++];
  const truthy = (v: string | boolean) => v !== '' && v !== false && v !== 'false';
  const primary = (): string | boolean => {
    const t = next();
    if (t === undefined) throw new Error(`expression ended early: ${expression}`);
    if (t === '!') return !truthy(primary());
    if (t === '(') {
      const v = or();
      if (next() !== ')') throw new Error(`missing ) in ${expression}`);
      return v;
    }
    if (t.startsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
    if (t === 'true' || t === 'false') return t === 'true';
    const [scope, ...path] = t.split('.');
    const table = ctx[scope as keyof ExpressionContext];
    if (!table || path.length !== 1) throw new Error(`unsupported expression: ${t}`);
    return table[path[0]!] ?? '';
  };
  const comparison = (): string | boolean => {
    const left = primary();
    const op = peek();
    if (op !== '==' && op !== '!=') return left;
    next();
    const right = primary();
    const equal = String(left).toLowerCase() === String(right).toLowerCase();
    return op === '==' ? equal : !equal;
  };
  const and = (): string | boolean => {
    let v = comparison();
    while (peek() === '&&') {
      next();
      const r = comparison();
      v = truthy(v) ? r : v;
    }
    return v;
  };
  const or = (): string | boolean => {
    let v = and();
    while (peek() === '||') {
      next();
      const r = and();
      v = truthy(v) ? v : r;
    }
    return v;
  };
  const value = or();
  if (at !== tokens.length) throw new Error(`unsupported expression: ${expression}`);
  return value;
}

/** A value with `${{ }}` templates filled in, as the runner does for `with:` and `env:`. */
export function interpolate(template: string, ctx: ExpressionContext): string {
  return template.replace(/\$\{\{([^}]*)\}\}/g, (_, expr: string) =>
    String(evaluate(expr.trim(), ctx)),
  );
}

/** An `if:` condition; GitHub allows it with or without `${{ }}`. */
export function condition(expression: string | undefined, ctx: ExpressionContext): boolean {
  if (expression === undefined) return true;
  const bare = expression.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const v = evaluate(bare.trim(), ctx);
  return v !== '' && v !== false;
}
