import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { parse } from 'yaml';

/** One `run:` block of a workflow, with the shell GitHub runs it with. */
export interface RunScript {
  /** `file: job › step` for messages. */
  where: string;
  /** The `shell:` in force (step, job defaults, workflow defaults), or undefined for the default. */
  shell: string | undefined;
  script: string;
}

interface Defaults {
  run?: { shell?: string };
}
interface Step {
  name?: string;
  id?: string;
  run?: string;
  shell?: string;
}
interface Job {
  defaults?: Defaults;
  steps?: Step[];
}

/** Every `run:` block of a workflow file's text. */
export function runScripts(text: string, file: string): RunScript[] {
  const workflow = parse(text) as { defaults?: Defaults; jobs?: Record<string, Job> };
  const scripts: RunScript[] = [];
  for (const [jobId, job] of Object.entries(workflow.jobs ?? {})) {
    for (const [index, step] of (job.steps ?? []).entries()) {
      if (typeof step.run !== 'string') continue;
      scripts.push({
        where: `${file}: ${jobId} › ${step.name ?? step.id ?? `step ${index + 1}`}`,
        shell: step.shell ?? job.defaults?.run?.shell ?? workflow.defaults?.run?.shell,
        script: step.run,
      });
    }
  }
  return scripts;
}

/**
 * The shellcheck dialect of a `shell:` value on a Linux runner. GitHub runs a step with no
 * shell as `bash -e {0}` (`sh -e {0}` where bash is missing), `bash` as
 * `bash --noprofile --norc -eo pipefail {0}`, `sh` as `sh -e {0}`, and a custom shell by its
 * command ("Using a specific shell", GitHub's workflow syntax reference). Anything else is an
 * error here: we ship no workflow with a shell shellcheck cannot read.
 */
export function shellcheckDialect(shell: string | undefined): 'bash' | 'sh' {
  const command = (shell ?? 'bash').trim().split(/\s+/)[0];
  if (command === 'bash' || command === 'sh') return command;
  throw new Error(`shell ${JSON.stringify(shell)}: shellcheck reads only bash and sh scripts`);
}

/**
 * `${{ … }}` replaced by underscores of the same length, newlines kept, as actionlint does
 * before it hands a script to shellcheck (rule_shellcheck.go, sanitizeExpressionsInScript):
 * the script keeps its shape and line numbers, and a word stays a word.
 */
export function withoutExpressions(script: string): string {
  return script.replace(/\$\{\{[\s\S]*?\}\}/g, (expr) => expr.replace(/[^\r\n]/g, '_'));
}

/**
 * The checks actionlint leaves out, for the same reasons: SC1091 (a sourced file is not here),
 * SC2194 / SC2050 / SC2157 (a constant word or test, which is what an expression's placeholder
 * is), SC2154 (variables come from `env:`, which shellcheck cannot see).
 */
const EXCLUDED = ['SC1091', 'SC2194', 'SC2050', 'SC2154', 'SC2157'];

export interface ShellcheckFinding {
  line: number;
  column: number;
  level: string;
  code: number;
  message: string;
}

/** The real shellcheck's findings on one script, at every severity. */
export async function shellcheck(
  script: string,
  dialect: 'bash' | 'sh',
): Promise<ShellcheckFinding[]> {
  const child = spawn(
    'shellcheck',
    ['--norc', '--format=json1', `--shell=${dialect}`, `--exclude=${EXCLUDED.join(',')}`, '-'],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(
              'shellcheck is not on PATH: install the Debian package shellcheck (apt-get install -y shellcheck)',
            )
          : error,
      ),
    );
  });
  await spawned;
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(withoutExpressions(script));
  const [code] = (await once(child, 'close')) as [number | null];
  // 0: no findings; 1: findings; anything else: shellcheck itself failed.
  if (code !== 0 && code !== 1) throw new Error(`shellcheck exited with ${code}: ${stderr}`);
  return (JSON.parse(stdout) as { comments: ShellcheckFinding[] }).comments.map(
    ({ line, column, level, code: sc, message }) => ({ line, column, level, code: sc, message }),
  );
}
