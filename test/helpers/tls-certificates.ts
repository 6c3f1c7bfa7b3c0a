import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private CA and a server certificate it signed, as PEM files (Debian's `openssl`). */
export interface TestCertificates {
  caFile: string;
  certFile: string;
  keyFile: string;
  remove(): void;
}

/**
 * A certificate authority of the test's own and a server certificate for `127.0.0.1` and
 * `localhost` signed by it: what a hosted Postgres with a CA of its own presents. `names` are
 * more subject alternative names (`DNS:*.example.test`, `IP:198.18.0.2`). Every file is
 * world-readable, for a server that drops to another user (PgBouncer's `-u postgres`).
 */
export function makeTestCertificates(names: string[] = []): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'ac-tls-'));
  chmodSync(dir, 0o755);
  const file = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=agent-coordinator test CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  ]);
  openssl([
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  ]);
  // The names a client checks the server by (verify-full): SAN, not the CN.
  const alternativeNames = ['IP:127.0.0.1', 'DNS:localhost', ...names].join(', ');
  writeFileSync(file('server.ext'), `subjectAltName = ${alternativeNames}\n`);
  openssl([
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  ]);
  for (const name of ['ca.pem', 'server.pem', 'server.key']) chmodSync(file(name), 0o644);
  return {
    caFile: file('ca.pem'),
    certFile: file('server.pem'),
    keyFile: file('server.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
