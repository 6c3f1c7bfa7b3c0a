import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Debian's PgBouncer (package `pgbouncer`). */
export const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` through the pooler. */
  url(database: string): string;
  /** The admin console's answer to a SHOW command (`SHOW POOLS`, `SHOW STATS`). */
  readonly adminUrl: string;
  /** Everything PgBouncer logged. */
  readonly log: string[];
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Starts PgBouncer in front of the test server (`upstreamPort` on 127.0.0.1, trust auth) in
 * transaction mode, with `poolSize` server connections per database and user: fewer than the
 * app's clients, so clients really share sessions. With `ignoreOptions`, it accepts the
 * `options` startup parameter and drops it (`ignore_startup_parameters`), as some hosted
 * poolers do; by default it refuses it. With `tls`, clients must connect over TLS
 * (`client_tls_sslmode = require`) and it presents that certificate, as hosted poolers do.
 * Resolves once it listens.
 */
export async function startPgBouncer(
  options: {
    upstreamPort?: number;
    poolSize?: number;
    ignoreOptions?: boolean;
    tls?: { certFile: string; keyFile: string };
  } = {},
): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER))
    throw new Error(
      `${PGBOUNCER} is missing: install Debian's pgbouncer package (apt-get install -y pgbouncer)`,
    );
  const port = await freePort();
  // PgBouncer will not run as root: it drops to the postgres user (-u), who must read these.
  const dir = mkdtempSync(join(tmpdir(), 'ac-pgbouncer-'));
  chmodSync(dir, 0o755);
  const authFile = join(dir, 'users.txt');
  writeFileSync(authFile, '"postgres" ""\n', { mode: 0o644 });
  const config = join(dir, 'pgbouncer.ini');
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${options.upstreamPort ?? 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      "unix_socket_dir = ''",
      'auth_type = trust',
      `auth_file = ${authFile}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 2}`,
      'max_client_conn = 200',
      ...(options.ignoreOptions ? ['ignore_startup_parameters = options'] : []),
      ...(options.tls
        ? [
            'client_tls_sslmode = require',
            `client_tls_cert_file = ${options.tls.certFile}`,
            `client_tls_key_file = ${options.tls.keyFile}`,
          ]
        : []),
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const child = spawn(PGBOUNCER, ['-u', 'postgres', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  const exited = once(child, 'exit');
  const listening = new Promise<void>((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on('line', (line) => {
        log.push(line);
        if (line.includes(`listening on 127.0.0.1:${port}`)) resolve();
      });
    void exited.then(([code]) =>
      reject(new Error(`pgbouncer exited (${code}) before listening:\n${log.join('\n')}`)),
    );
  });
  await listening;
  return {
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/pgbouncer`,
    log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
