import { lstat } from 'node:fs/promises';
import { FenceError } from './agent-firewall.js';
import { run } from './root-commands.js';

/**
 * The runner's resolver also answers without network traffic, which netfilter never sees:
 * systemd-resolved over the D-Bus system bus (`resolvectl query`, org.freedesktop.resolve1) and
 * over its varlink socket (nss-resolve), and nscd where it runs. A name asked there reaches the
 * internet as one asked on port 53 would (docs/worker.md, "The agent's network"). Connecting to a
 * Unix socket takes write permission on it, so an ACL entry naming the agent's uid with no
 * permission closes each to the agent alone, while it runs; GitHub's Ubuntu runners have the
 * `acl` package's setfacl.
 */
export const RESOLVER_SOCKETS = [
  '/run/dbus/system_bus_socket',
  '/run/systemd/resolve/io.systemd.Resolve',
  '/run/nscd/socket',
];

export interface ClosedSockets {
  /** Takes the entries away again; throws, naming them, when one could not be. */
  reopen(): Promise<void>;
}

/**
 * Closes each of `sockets` that exists to `uid`, with `root` the prefix that runs a command as
 * root. Throws a FenceError, with the entries it had added taken away again, when one cannot be
 * set (no setfacl, a file system without ACLs).
 */
export async function closeResolverSockets(
  root: string[],
  uid: number,
  sockets: readonly string[] = RESOLVER_SOCKETS,
): Promise<ClosedSockets> {
  const closed: string[] = [];
  // By number: the entry is taken away after the user is deleted.
  const reopen = async (paths: string[]): Promise<string[]> => {
    const problems: string[] = [];
    for (const path of paths) {
      const result = await run([...root, 'setfacl', '-x', `u:${uid}`, path]);
      if (result.code !== 0) problems.push(`setfacl -x u:${uid} ${path}: ${result.stderr.trim()}`);
    }
    return problems;
  };
  for (const path of sockets) {
    const found = await lstat(path).catch(() => undefined);
    if (!found?.isSocket()) continue;
    const result = await run([...root, 'setfacl', '-m', `u:${uid}:---`, path]);
    if (result.code !== 0) {
      await reopen(closed);
      const missing = result.code === 127 ? ' (is setfacl installed? the acl package)' : '';
      const said = result.stderr.trim();
      throw new FenceError(
        `setfacl -m u:${uid}:--- ${path} exited with ${result.code}${missing}${said ? `: ${said}` : ''}`,
      );
    }
    closed.push(path);
  }
  return {
    async reopen() {
      const problems = await reopen(closed);
      if (problems.length > 0)
        throw new Error(`the resolver's sockets were not all opened again: ${problems.join('; ')}`);
    },
  };
}
