import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { hostName } from '../protocol/network.js';
import { readClientHello, type ClientHelloRead } from './tls-client-hello.js';

/**
 * What a CONNECT tunnel of the egress proxy may carry (docs/worker.md, "The agent's network"):
 * TLS to the host it was opened to. A server on a shared CDN picks the site by the TLS server
 * name (SNI) the client sends, not by the address it was reached at, so a tunnel to an allowed
 * host whose ClientHello names another site on the same CDN would reach that site (domain
 * fronting), and so would plain HTTP with another `Host`. The proxy reads the tunnel's first bytes
 * before any of them goes upstream; only a ClientHello that names the host connected to — or none,
 * to an IP address, which has no name to send — lets the tunnel go on. Anything else is refused:
 * git, package managers and the model API speak HTTPS, and plain HTTP has the proxy's own path
 * (an absolute URL), where it writes `Host` itself.
 */

/** How long the agent's client has to send its whole ClientHello once its tunnel is open. */
export const HELLO_TIMEOUT_MS = 10_000;

/**
 * A fatal `access_denied` alert (RFC 8446 §6.2): what a refused TLS client hears before the
 * tunnel closes, so that it says why (`tlsv1 alert access denied`) rather than that the
 * connection was reset.
 */
export const ACCESS_DENIED_ALERT = Buffer.from([21, 3, 3, 0, 2, 2, 49]);

/** How a tunnel begins: its bytes to send on, a refusal, or a client that went away first. */
export type TunnelStart =
  | { kind: 'pass'; bytes: Buffer }
  | { kind: 'refused'; reason: string; alert: boolean }
  | { kind: 'closed' };

/** Why a tunnel to `host` that begins with `hello` may not go on; undefined when it may. */
export function helloRefusal(
  host: string,
  hello: Extract<ClientHelloRead, { kind: 'hello' }>,
): string | undefined {
  // The server routes by the encrypted name, opened with the configuration its config_id names:
  // the outer name, whatever the client writes there, binds nothing. Chromium's GREASE form,
  // sent with no configuration, looks the same and is refused too (docs/worker.md).
  if (hello.hiddenServerName)
    return "the tunnel's TLS ClientHello hides its server name (Encrypted Client Hello)";
  if (hello.serverName === undefined)
    return isIP(host) !== 0 ? undefined : "the tunnel's TLS ClientHello names no server";
  // One spelling for both: lower-case, without a final dot (src/protocol/network.ts).
  const named = hostName(hello.serverName)?.host;
  if (named !== undefined && named === hostName(host)?.host) return undefined;
  return `the tunnel's TLS server name is ${hello.serverName.slice(0, 200)}`;
}

/**
 * Reads the tunnel's first bytes from `client` (`head`, what came with the CONNECT request, then
 * more) until they decide, and leaves `client` paused with nothing read past them: on `pass`,
 * `bytes` is everything read, to be sent upstream as it came before the rest is piped.
 */
export function awaitClientHello(client: Duplex, head: Buffer, host: string): Promise<TunnelStart> {
  return new Promise((resolve) => {
    let read = Buffer.alloc(Math.max(head.length, 4096));
    let filled = 0;
    const append = (chunk: Buffer) => {
      if (filled + chunk.length > read.length) {
        const grown = Buffer.alloc(Math.max(2 * read.length, filled + chunk.length));
        read.copy(grown, 0, 0, filled);
        read = grown;
      }
      chunk.copy(read, filled);
      filled += chunk.length;
    };
    const finish = (start: TunnelStart) => {
      clearTimeout(timer);
      client.off('data', onData);
      client.off('end', onClosed);
      client.off('close', onClosed);
      client.pause();
      resolve(start);
    };
    /** Whether the bytes so far decide; if so, finished. */
    const decide = (): boolean => {
      const hello = readClientHello(read.subarray(0, filled));
      if (hello.kind === 'incomplete') return false;
      if (hello.kind === 'not-tls') {
        const reason = `the tunnel does not begin with a TLS ClientHello: ${hello.why}`;
        finish({ kind: 'refused', reason, alert: false });
        return true;
      }
      const reason = helloRefusal(host, hello);
      finish(
        reason === undefined
          ? { kind: 'pass', bytes: read.subarray(0, filled) }
          : { kind: 'refused', reason, alert: true },
      );
      return true;
    };
    const onData = (chunk: Buffer) => {
      append(chunk);
      decide();
    };
    const onClosed = () => finish({ kind: 'closed' });
    const timer = setTimeout(
      () =>
        finish({
          kind: 'refused',
          reason: `the tunnel sent no whole TLS ClientHello within ${HELLO_TIMEOUT_MS / 1000} s`,
          alert: false,
        }),
      HELLO_TIMEOUT_MS,
    );
    if (client.destroyed) return finish({ kind: 'closed' });
    append(head);
    if (decide()) return;
    client.on('data', onData);
    client.once('end', onClosed);
    client.once('close', onClosed);
  });
}
