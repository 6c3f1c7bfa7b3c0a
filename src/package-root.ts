import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The folder holding our package.json: code runs both from src/ (tsx) and from dist/src/ (built). */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string };
      if (pkg.name === 'agent-coordinator') return (cached = dir);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('agent-coordinator: package.json not found above ' + dir);
    dir = parent;
  }
}
