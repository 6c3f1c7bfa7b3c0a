import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A loopback TCP proxy to cut a process off from a server without stopping the server (other
 * test files share it): `cut()` resets every open connection and every new one until `restore()`.
 */
export interface TcpProxy {
  readonly port: number;
  readonly isCut: boolean;
  /** Connections accepted and passed through so far. */
  readonly connections: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let cut = false;
  let connections = 0;
  const server = createServer((client) => {
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    connections++;
    const upstream = createConnection(target);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    get isCut() {
      return cut;
    },
    get connections() {
      return connections;
    },
    cut() {
      cut = true;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    restore() {
      cut = false;
    },
    async close() {
      cut = true;
      for (const socket of open) socket.destroy();
      open.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
