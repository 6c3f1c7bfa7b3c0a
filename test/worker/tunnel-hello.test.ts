import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { awaitClientHello, helloRefusal } from '../../src/worker/tunnel-hello.js';
import { clientHello, realClientHello } from './helpers/client-hello.js';

/**
 * What a CONNECT tunnel of the egress proxy may carry (docs/worker.md, "The agent's network"):
 * the rule, host by server name, and the reading of the tunnel's first bytes, chunk by chunk as
 * they come. Through the proxy, with real TLS clients: test/worker/egress-proxy.test.ts.
 */

const hello = (serverName?: string, hiddenServerName = false) => ({
  kind: 'hello' as const,
  hiddenServerName,
  ...(serverName !== undefined && { serverName }),
});

describe('helloRefusal', () => {
  it.each([
    ['svc.example.test', 'svc.example.test'],
    ['svc.example.test', 'SVC.Example.TEST'],
    ['svc.example.test', 'svc.example.test.'],
    ['svc.example.test.', 'svc.example.test'],
    ['Svc.Example.Test', 'svc.example.test'],
    ['192.0.2.1', '192.0.2.1'],
    ['2001:db8::1', '2001:db8:0::1'],
  ])('lets CONNECT %s go on with the server name %s', (host, serverName) => {
    expect(helloRefusal(host, hello(serverName))).toBeUndefined();
  });

  it.each(['192.0.2.1', '2001:db8::1'])('lets CONNECT %s go on with no server name', (host) => {
    expect(helloRefusal(host, hello())).toBeUndefined();
  });

  it.each([
    [
      'svc.example.test',
      'other.example.test',
      "the tunnel's TLS server name is other.example.test",
    ],
    ['svc.example.test', 'example.test', "the tunnel's TLS server name is example.test"],
    [
      'svc.example.test',
      'svc.example.test..',
      "the tunnel's TLS server name is svc.example.test..",
    ],
    [
      'svc.example.test',
      'svc.example.test.evil',
      "the tunnel's TLS server name is svc.example.test.evil",
    ],
    ['192.0.2.1', 'svc.example.test', "the tunnel's TLS server name is svc.example.test"],
    ['192.0.2.1', '192.0.2.2', "the tunnel's TLS server name is 192.0.2.2"],
    ['svc.example.test', undefined, "the tunnel's TLS ClientHello names no server"],
    [
      'svc.example.test',
      `${'a'.repeat(300)}`,
      `the tunnel's TLS server name is ${'a'.repeat(200)}`,
    ],
  ])('refuses CONNECT %s with the server name %s', (host, serverName, reason) => {
    expect(helloRefusal(host, hello(serverName))).toBe(reason);
  });

  it.each([
    ['svc.example.test', 'svc.example.test'],
    ['192.0.2.1', undefined],
  ])('refuses CONNECT %s with Encrypted Client Hello, whatever its outer name', (host, name) => {
    expect(helloRefusal(host, hello(name, true))).toBe(
      "the tunnel's TLS ClientHello hides its server name (Encrypted Client Hello)",
    );
  });
});

describe('awaitClientHello', () => {
  it('reads a hello a byte at a time, and leaves what follows it in the stream, in order', async () => {
    const real = await realClientHello({ servername: 'svc.example.test' });
    const client = new PassThrough();
    const started = awaitClientHello(client, real.subarray(0, 3), 'svc.example.test');
    for (const byte of real.subarray(3, -1)) client.write(Buffer.from([byte]));
    // The last byte of the hello comes with early data; more comes after.
    client.write(Buffer.concat([real.subarray(-1), Buffer.from('early')]));
    client.write('later');
    client.end('last');
    const start = await started;
    expect(start).toEqual({ kind: 'pass', bytes: Buffer.concat([real, Buffer.from('early')]) });
    expect(client.isPaused()).toBe(true);
    const rest: Buffer[] = [];
    for await (const chunk of client) rest.push(chunk as Buffer);
    expect(Buffer.concat(rest).toString()).toBe('laterlast');
  });

  it('decides on what came with the CONNECT request alone', async () => {
    const client = new PassThrough();
    const head = Buffer.concat([clientHello('svc.example.test'), Buffer.from('early')]);
    expect(await awaitClientHello(client, head, 'svc.example.test')).toEqual({
      kind: 'pass',
      bytes: head,
    });
    expect(await awaitClientHello(client, Buffer.from('GET /'), 'svc.example.test')).toEqual({
      kind: 'refused',
      reason:
        "the tunnel does not begin with a TLS ClientHello: its first byte is 71, not a TLS handshake record's (22)",
      alert: false,
    });
  });

  it('asks for an alert when it refuses a hello', async () => {
    const named = new PassThrough();
    const refused = awaitClientHello(named, Buffer.alloc(0), 'svc.example.test');
    named.write(clientHello('other.example.test'));
    expect(await refused).toEqual({
      kind: 'refused',
      reason: "the tunnel's TLS server name is other.example.test",
      alert: true,
    });
  });

  it('says so when the client ends or goes away before its hello is whole', async () => {
    const ending = new PassThrough();
    const ended = awaitClientHello(ending, Buffer.alloc(0), 'svc.example.test');
    ending.end(clientHello('svc.example.test').subarray(0, 30));
    expect(await ended).toEqual({ kind: 'closed' });

    const leaving = new PassThrough();
    const left = awaitClientHello(leaving, Buffer.alloc(0), 'svc.example.test');
    leaving.write(clientHello('svc.example.test').subarray(0, 30));
    leaving.destroy();
    expect(await left).toEqual({ kind: 'closed' });

    const gone = new PassThrough();
    gone.destroy();
    expect(await awaitClientHello(gone, Buffer.alloc(0), 'svc.example.test')).toEqual({
      kind: 'closed',
    });
  });
});
