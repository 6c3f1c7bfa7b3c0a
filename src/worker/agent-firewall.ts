import { access, readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { run } from './root-commands.js';

/**
 * Netfilter rules that keep one user's traffic on the loopback interface while its agent runs
 * (docs/worker.md, "The agent's network"). They live in a chain of the run's own, entered from the
 * filter table's OUTPUT chain by the `owner` match on the agent's uid — the match sees the user
 * of the socket a locally made packet leaves from, whatever process sent it — so the rules of
 * another agent, and the runner's own, are left alone. On the loopback interface everything is
 * accepted but port 53: the runner's resolver (systemd-resolved's stub on 127.0.0.53, on
 * GitHub's Ubuntu runners) sends the names it is asked for to the internet, and a name can carry
 * anything. Every port of the resolvers /etc/resolv.conf names is refused too (resolverAddresses):
 * one may listen on a port of its own that port 53 is forwarded to by NAT, and the filter table
 * sees the packet after the rewrite — Docker's embedded DNS, 127.0.0.11 in a `container:` job, does
 * (moby/libnetwork, resolver.go). Anything else is refused with a reset or an ICMP error, so a
 * connection fails at once instead of hanging. gh-aw's firewall (github/gh-aw-firewall,
 * src/host-iptables.ts) keeps its rules in a chain of its own the same way.
 */
export interface NetworkFence {
  /** Takes the rules away, each step tried; throws, naming them, when a step failed. */
  remove(): Promise<void>;
}

/** What refused the fence: the reason the attempt fails with (`network_unrestricted`). */
export class FenceError extends Error {}

interface Family {
  command: 'iptables' | 'ip6tables';
  ip: 4 | 6;
  /** The ICMP error a refused datagram gets. */
  unreachable: string;
}

const FAMILIES: Family[] = [
  { command: 'iptables', ip: 4, unreachable: 'icmp-port-unreachable' },
  { command: 'ip6tables', ip: 6, unreachable: 'icmp6-port-unreachable' },
];

/** The rules of the chain, in order; `resolvers`, the family's resolver addresses. */
function chainRules(family: Family, resolvers: string[]): string[][] {
  return [
    ...resolvers.flatMap((address) => [
      ['-d', address, '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
      ['-d', address, '-j', 'REJECT', '--reject-with', family.unreachable],
    ]),
    ['-o', 'lo', '-p', 'udp', '--dport', '53', '-j', 'REJECT', '--reject-with', family.unreachable],
    ['-o', 'lo', '-p', 'tcp', '--dport', '53', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
    ['-o', 'lo', '-j', 'ACCEPT'],
    ['-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
    ['-j', 'REJECT', '--reject-with', family.unreachable],
  ];
}

/**
 * Puts the rules in place for `uid` in a chain named `chain` (at most 28 characters), with `root`
 * the prefix that runs a command as root (`[]` or `sudo -n`). Each family's chain and the OUTPUT
 * rule that enters it go in as one `iptables-restore --noflush` transaction: the kernel takes all
 * of them or none, so no half-built chain ever holds the agent's traffic, and one command a
 * family costs far less than one a rule. Throws a FenceError, with every family it had fenced
 * taken away again, when a command is missing or refuses the rules; IPv6 is skipped only where
 * the kernel has no IPv6 at all.
 */
export async function fenceNetwork(
  root: string[],
  uid: number,
  chain: string,
): Promise<NetworkFence> {
  const entry = ['OUTPUT', '-m', 'owner', '--uid-owner', String(uid), '-j', chain];
  const resolvers = await resolverAddresses();
  const fenced: Family[] = [];
  const fence = async (family: Family): Promise<void> => {
    const own = resolvers.filter((address) => isIP(address) === family.ip);
    const transaction = restoreInput([
      `:${chain} - [0:0]`,
      // The chain is whole before the uid's traffic enters it.
      ...chainRules(family, own).map((rule) => ruleLine(['-A', chain, ...rule])),
      ruleLine(['-I', ...entry]),
    ]);
    const restored = await restore(root, family, transaction);
    if (restored.code !== 0) {
      if (family.ip === 6 && !(await kernelHasIpv6())) return;
      throw new FenceError(refusal(family, transaction, restored));
    }
    fenced.push(family);
  };
  const unfence = (family: Family) => removeFamily(root, family, entry, chain);
  // IPv4 and IPv6 have tables of their own: both at once.
  const results = await Promise.allSettled(FAMILIES.map(fence));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(fenced.map(unfence));
    throw failed.reason;
  }
  return {
    async remove() {
      const problems = (await Promise.all(fenced.map(unfence))).flat();
      if (problems.length > 0)
        throw new Error(`the agent's network rules were not all removed: ${problems.join('; ')}`);
    },
  };
}

/**
 * Takes a family's rules away in one transaction; when the kernel refuses it (a rule already
 * gone, say), step by step, each step tried, so what can go does. The problems, if any.
 */
async function removeFamily(
  root: string[],
  family: Family,
  entry: string[],
  chain: string,
): Promise<string[]> {
  const steps = [
    ['-D', ...entry],
    ['-F', chain],
    ['-X', chain],
  ];
  const whole = await restore(root, family, restoreInput(steps.map(ruleLine)));
  if (whole.code === 0) return [];
  const problems: string[] = [];
  for (const args of steps) {
    const result = await run([...root, family.command, '-w', ...args]);
    if (result.code !== 0)
      problems.push(`${family.command} ${args.join(' ')}: ${result.stderr.trim()}`);
  }
  return problems;
}

/** `iptables-restore` input for the filter table (iptables-restore(8)), committed as a whole. */
function restoreInput(lines: string[]): string {
  return ['*filter', ...lines, 'COMMIT', ''].join('\n');
}

/** A rule as a line of restore input: its words need no quoting (no spaces, no quotes in any). */
function ruleLine(args: string[]): string {
  if (args.some((word) => !/^[\w.:/-]+$/.test(word)))
    throw new FenceError(`a netfilter rule word the restore input cannot carry: ${args.join(' ')}`);
  return args.join(' ');
}

/** Feeds `input` to the family's `iptables-restore --noflush`, waiting for the xtables lock. */
function restore(root: string[], family: Family, input: string) {
  return run([...root, `${family.command}-restore`, '-w', '--noflush'], input);
}

function refusal(family: Family, input: string, result: { code: number; stderr: string }): string {
  const missing =
    result.code === 127 || /command not found|No such file/i.test(result.stderr)
      ? ` (is ${family.command}-restore installed? Debian and Ubuntu: the iptables package)`
      : '';
  const said = result.stderr.trim();
  const rules = input.trim().split('\n').slice(1, -1).join('; ');
  return `${family.command}-restore --noflush exited with ${result.code}${missing}${said ? `: ${said}` : ''} (rules: ${rules})`;
}

/**
 * The addresses of the `nameserver` lines of /etc/resolv.conf (resolv.conf(5)) but 127.0.0.1 and
 * ::1, where the worker's proxies listen and the runner's services do: a resolver there is closed
 * on port 53 alone. None when the file cannot be read.
 */
async function resolverAddresses(): Promise<string[]> {
  const text = await readFile('/etc/resolv.conf', 'utf8').catch(() => '');
  return [...text.matchAll(/^[ \t]*nameserver[ \t]+([^\s%]+)/gm)]
    .map((line) => line[1]!)
    .filter((address) => isIP(address) !== 0 && !WORKER_LOOPBACK.includes(canonical(address)));
}

const WORKER_LOOPBACK = ['127.0.0.1', '::1'];

/** An IPv6 address in its shortest form (`0:0::1` is `::1`), as the URL parser writes it. */
function canonical(address: string): string {
  return isIP(address) === 6 ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address;
}

/** Whether the kernel has IPv6 (a kernel booted with ipv6.disable=1 has no such file). */
async function kernelHasIpv6(): Promise<boolean> {
  return access('/proc/net/if_inet6').then(
    () => true,
    () => false,
  );
}
