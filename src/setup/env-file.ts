import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { parseEnv } from 'node:util';
import { EnvError } from '../env.js';

/**
 * Sets `values` in the env file at `path`, keeping its other variables (its comments are not
 * kept). The file holds the App's private key: only its owner may read it.
 */
export function updateEnvFile(path: string, values: Record<string, string>): void {
  const current = existsSync(path) ? parseEnv(readFileSync(path, 'utf8')) : {};
  const merged = { ...current, ...values };
  const text = Object.entries(merged)
    .map(([name, value]) => `${name}=${quoteEnvValue(value ?? '')}`)
    .join('\n');
  writeFileSync(path, `${text}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/**
 * One value as Node's env-file parser (`process.loadEnvFile`, `util.parseEnv`) reads it back
 * unchanged: single quotes are literal; double quotes turn `\n` into a line break, which is
 * how a PEM stays on one line; backticks are literal across lines.
 */
export function quoteEnvValue(value: string): string {
  // The parser turns carriage returns into line ends whatever the quotes.
  if (value.includes('\r')) throw new Error('an env file cannot hold a carriage return');
  if (!/[\n']/.test(value)) return `'${value}'`;
  if (!/"|\\n/.test(value)) return `"${value.replace(/\n/g, '\\n')}"`;
  if (!value.includes('`')) return `\`${value}\``;
  throw new Error('an env file cannot hold a value with quotes, backticks and line breaks');
}

/** Creates `dir` if needed; an EnvError naming `variable` when this process cannot write there. */
export function ensureWritableDir(variable: string, dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new EnvError([
      `${variable}: cannot write ${dir} (${reason}): the setup flow saves the App's credentials there`,
    ]);
  }
}
