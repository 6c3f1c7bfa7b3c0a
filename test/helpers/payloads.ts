import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface ExampleGroup {
  name: string;
  examples: Array<Record<string, unknown> & { action?: string }>;
}

const groups = require('@octokit/webhooks-examples/api.github.com/index.json') as ExampleGroup[];

export const INSTALLATION_ID = 2 ** 33 + 5;

/**
 * A real payload from @octokit/webhooks-examples (deep-copied), with the `installation` an
 * App delivery carries, and any overrides merged on top.
 */
export function examplePayload<T = Record<string, unknown>>(
  event: string,
  action?: string,
  overrides: Record<string, unknown> = {},
): T {
  const group = groups.find((g) => g.name === event);
  const example = group?.examples.find((e) => action === undefined || e.action === action);
  if (!example) throw new Error(`no webhooks-examples payload for ${event}.${action}`);
  const copy = structuredClone(example);
  return {
    ...copy,
    installation: { id: INSTALLATION_ID, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNQ==' },
    ...overrides,
  } as T;
}
