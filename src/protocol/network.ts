import { z } from 'zod';

/**
 * The hosts an agent may reach through the worker's proxy (`worker.network.allow`, docs/worker.md
 * "The agent's network"): the coordinator checks the list when it reads the configuration and
 * sends it in the assignment, and the worker's proxy matches each host the agent asks for against
 * it. Both sides read a pattern here, so a pattern the configuration accepts is one the worker
 * matches.
 */

/** The list `["*"]`: the open network, what every agent had before the key existed. */
export const OPEN_NETWORK = '*';

export const MAX_ALLOWED_HOSTS = 200;

const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
/**
 * A host name, lower-case. Its last label starts with a letter, as every top-level domain does:
 * the resolver (glibc's inet_aton) reads a name whose last label is a number — `127.1`,
 * `2130706433`, `0x7f.1` — as an IPv4 address, which must be listed as one.
 */
const NAME = new RegExp(`^(?:${LABEL}\\.)*[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$`);
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/** A host as the agent names it, or as a pattern lists it, in one spelling per host. */
export interface HostName {
  kind: 'name' | 'ip';
  host: string;
}

/**
 * The host's one spelling: lower-case, a name without its final dot, an IPv6 address without
 * brackets and in its shortest form (`0:0::1` is `::1`); undefined for what is neither a host
 * name nor an IP address.
 */
export function hostName(text: string): HostName | undefined {
  const host = text.toLowerCase();
  if (IPV4.test(host)) return { kind: 'ip', host };
  if (host.includes(':')) {
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    try {
      // The URL parser writes an IPv6 address in its canonical form (RFC 5952).
      return { kind: 'ip', host: new URL(`http://[${bare}]/`).hostname.slice(1, -1) };
    } catch {
      return undefined;
    }
  }
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  return name.length <= 253 && NAME.test(name) ? { kind: 'name', host: name } : undefined;
}

/**
 * A pattern of `worker.network.allow` in its one spelling (`*`, a host, or `*.` and a name), or
 * undefined for what is none.
 */
export function hostPattern(text: string): string | undefined {
  const pattern = text.trim().toLowerCase();
  if (pattern === OPEN_NETWORK) return pattern;
  const wildcard = pattern.startsWith('*.');
  const host = hostName(wildcard ? pattern.slice(2) : pattern);
  if (!host || (wildcard && host.kind === 'ip')) return undefined;
  return wildcard ? `*.${host.host}` : host.host;
}

/** Whether the list opens the whole network (`*`). */
export function isOpenNetwork(allow: readonly string[]): boolean {
  return allow.includes(OPEN_NETWORK);
}

/**
 * Whether the agent may reach `host` (as the agent wrote it): a name matches itself and every
 * `*.` pattern it ends with (`*.example.com` takes `a.example.com` and `a.b.example.com`, not
 * `example.com`); an IP address matches only itself, listed.
 */
export function hostAllowed(allow: readonly string[], host: string): boolean {
  if (isOpenNetwork(allow)) return true;
  const asked = hostName(host);
  if (!asked) return false;
  return allow.some((listed) => {
    const pattern = hostPattern(listed);
    if (pattern?.startsWith('*.'))
      return asked.kind === 'name' && asked.host.endsWith(pattern.slice(1));
    return pattern === asked.host;
  });
}

const PATTERN_PROBLEM =
  'expected a host name (api.example.com), *. and a name (*.example.com), an IP address, or * alone';

/** One pattern, in its one spelling. */
const patternSchema = z.string().transform((text, ctx) => {
  const pattern = hostPattern(text);
  if (pattern !== undefined) return pattern;
  ctx.issues.push({ code: 'custom', message: PATTERN_PROBLEM, input: text });
  return z.NEVER;
});

/** `worker.network.allow`, and the assignment's `network.allow`. */
export const allowListSchema = z
  .array(patternSchema)
  .max(MAX_ALLOWED_HOSTS, `at most ${MAX_ALLOWED_HOSTS} hosts`)
  .refine((allow) => !isOpenNetwork(allow) || allow.length === 1, {
    message: '* opens the whole network: list it alone',
  });
