import { isOpenNetwork } from '../protocol/network.js';
import { fenceNetwork, FenceError, type NetworkFence } from './agent-firewall.js';
import type { AgentUser } from './agent-user.js';
import { startEgressProxy } from './egress-proxy.js';
import { fail } from './outcome.js';
import { closeResolverSockets, type ClosedSockets } from './resolver-sockets.js';

/**
 * The agent's network while `worker.network.allow` is not `*` (docs/worker.md, "The agent's
 * network"): netfilter rules keep its user on the loopback interface (src/worker/agent-firewall.ts),
 * where the worker's API-key proxy and its egress proxy (src/worker/egress-proxy.ts) are, the
 * resolver's sockets are closed to it (src/worker/resolver-sockets.ts), and the egress proxy
 * takes it to the allowed hosts.
 */
export interface ClosedNetwork {
  /** The agent's proxy variables. */
  env: Record<string, string>;
  /** Stops the proxy and takes the rules away: after the agent's processes are gone. */
  open(): Promise<void>;
  /**
   * Stops the proxy and leaves the rules and the sockets' entries in place, for the rest of the
   * job: for when a process of the agent's may still run.
   */
  leaveClosed(): Promise<void>;
}

/** What the assignment says of the network, as the worker goes by it. */
export type NetworkSetting =
  { kind: 'legacy' } | { kind: 'open' } | { kind: 'closed'; allow: readonly string[] };

export function networkSetting(allow: readonly string[] | undefined): NetworkSetting {
  if (allow === undefined) return { kind: 'legacy' };
  return isOpenNetwork(allow) ? { kind: 'open' } : { kind: 'closed', allow };
}

/** The log's words for the setting. */
export function describeNetwork(setting: NetworkSetting): string {
  switch (setting.kind) {
    case 'legacy':
      return "the coordinator sent no worker.network (it is from before the key): the agent's network is open, as it was";
    case 'open':
      return 'the agent\'s network is open (worker.network.allow: ["*"])';
    case 'closed':
      return setting.allow.length === 0
        ? "the agent's network is closed: loopback only, where the worker takes it to its model API (worker.network.allow: [])"
        : `the agent's network is closed: loopback only, and through the worker's proxy to ${setting.allow.join(', ')}`;
  }
}

/** Fails the attempt for what kept the network from closing; anything else is a bug. */
function unrestricted(error: unknown): never {
  if (error instanceof FenceError)
    fail(
      'network_unrestricted',
      `worker.network.allow closes the agent's network, and the worker could not close it: ${error.message}`,
    );
  throw error;
}

/**
 * Closes `user`'s network: fails the attempt (`network_unrestricted`) when the rules cannot be
 * put in place, before the agent starts. `say` writes a line of the job's log.
 */
export async function closeAgentNetwork(
  user: AgentUser,
  allow: readonly string[],
  say: (line: string) => void,
): Promise<ClosedNetwork> {
  let fence: NetworkFence;
  let sockets: ClosedSockets;
  try {
    // A chain name holds at most 28 characters: `ac-agent-` and 8 hex digits.
    fence = await fenceNetwork(user.root, user.uid, `ac-${user.name}`);
  } catch (error) {
    unrestricted(error);
  }
  try {
    sockets = await closeResolverSockets(user.root, user.uid);
  } catch (error) {
    await fence.remove();
    unrestricted(error);
  }
  const opened = async () => {
    for (const open of [() => sockets.reopen(), () => fence.remove()])
      await open().catch((error: unknown) => say((error as Error).message));
  };
  const proxy = await startEgressProxy({
    allow,
    refused: (host, reason) =>
      say(`the agent's network: refused ${host.slice(0, 200)} (${reason})`),
  }).catch(async (error: unknown) => {
    await opened();
    throw error;
  });
  return {
    env: proxy.env,
    async open() {
      await proxy.close();
      await opened();
    },
    async leaveClosed() {
      await proxy.close();
      say(
        "the agent's network stays closed: processes of its user may still run, so its rules stay until the runner is thrown away",
      );
    },
  };
}
