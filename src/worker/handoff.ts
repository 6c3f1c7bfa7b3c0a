import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { assignmentResponseSchema, type AssignmentResponse } from '../protocol/assignment.js';
import { fail } from './outcome.js';

/**
 * What the worker's three jobs hand each other as artifacts (docs/worker.md, "Three jobs").
 * The assignment job writes the assignment without its token; the agent job writes what the
 * agent produced. The publish job trusts nothing in the result: it is the agent's output, and
 * a prompt-injected agent may have written any of it (each field is checked where it is used).
 */

export const ASSIGNMENT_FILE = 'assignment.json';
export const RESULT_FILE = 'result.json';
export const PATCH_FILE = 'change.patch';

/** The assignment as the agent job may see it: everything but the GitHub token. */
export type AssignmentFields = Omit<AssignmentResponse, 'token' | 'expires_at'>;

const assignmentFieldsSchema = assignmentResponseSchema.omit({ token: true, expires_at: true });

export function withoutToken(assignment: AssignmentResponse): AssignmentFields {
  const { token: _token, expires_at: _expires, ...fields } = assignment;
  return fields;
}

export async function writeAssignment(dir: string, fields: AssignmentFields): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, ASSIGNMENT_FILE), `${JSON.stringify(fields, null, 2)}\n`);
}

export async function readAssignment(dir: string): Promise<AssignmentFields> {
  const value = await readJson(join(dir, ASSIGNMENT_FILE), 'the assignment job');
  const parsed = assignmentFieldsSchema.safeParse(value);
  if (!parsed.success) fail('bad_input', `${ASSIGNMENT_FILE} is not an assignment`);
  return parsed.data;
}

const SHA = /^[0-9a-f]{40}$/;
// A path as git prints it in a diff: no NUL, bounded; where it is used it is checked again.
const path = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.includes('\0'));
const text = (max: number) => z.string().max(max);

const usageSchema = z.object({
  costUsd: z.number().nonnegative().max(1e6),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
});

export const agentResultSchema = z.object({
  version: z.literal(1),
  task_id: z.string(),
  issue: z.string(),
  attempt: z.string(),
  mode: z.enum(['plan', 'work', 'fix']),
  /** Stopped at its deadline: the publish job keeps the work as partial. */
  stopped: z.boolean(),
  /** The agent's final message (plan mode: its answer, holding the tasks block). */
  summary: text(1_000_000),
  usage: usageSchema.nullable(),
  /**
   * The commit's parents: the first is what the patch applies to (the branch head, or the
   * base for a `work` retry); a second is the base a `fix` merged in.
   */
  parents: z.array(z.string().regex(SHA)).max(2),
  /** For a rewrite (a `work` retry): the branch head the agent job started from. */
  lease: z.string().regex(SHA).nullable(),
  /** Files the merge of the base left conflicted, for the commit message. */
  conflicts: z.array(path).max(10_000),
  /** Files the agent itself changed (not the merge), for the answers to review threads. */
  touched: z.array(path).max(100_000),
});
export type AgentResult = z.infer<typeof agentResultSchema>;

export async function writeResult(dir: string, result: AgentResult, patch: Buffer): Promise<void> {
  // A fresh folder: an agent running as the worker's user could have put a FIFO there.
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, RESULT_FILE), `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(join(dir, PATCH_FILE), patch);
}

/** The agent job's result, checked for shape; a result that is not one fails the attempt. */
export async function readResult(dir: string): Promise<{ result: AgentResult; patch: Buffer }> {
  const value = await readJson(join(dir, RESULT_FILE), 'the agent job');
  const parsed = agentResultSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || 'result'}: ${i.message}`);
    fail('bad_result', `${RESULT_FILE} is not an agent result: ${problems.join('; ')}`);
  }
  const patch = await readFile(join(dir, PATCH_FILE)).catch(() => undefined);
  if (patch === undefined) fail('bad_result', `the agent job left no ${PATCH_FILE}`);
  return { result: parsed.data, patch };
}

async function readJson(file: string, from: string): Promise<unknown> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch {
    fail('bad_input', `${file} is missing: ${from} did not hand it over`);
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    fail(file.endsWith(RESULT_FILE) ? 'bad_result' : 'bad_input', `${file} is not JSON`);
  }
}
