// git's pkt-line framing (Documentation/gitprotocol-common.txt): four hex digits of length
// (including themselves) then the payload; "0000" is a flush packet.

type Packet = Buffer | 'flush';

function parse(buf: Buffer): Packet[] | undefined {
  const packets: Packet[] = [];
  let at = 0;
  while (at + 4 <= buf.length) {
    const size = Number.parseInt(buf.subarray(at, at + 4).toString('ascii'), 16);
    if (!Number.isFinite(size)) return undefined;
    if (size < 4) {
      // 0000 flush; 0001/0002 (protocol v2 delimiters) do not occur in a push report.
      packets.push('flush');
      at += 4;
      continue;
    }
    if (at + size > buf.length) return undefined;
    packets.push(buf.subarray(at + 4, at + size));
    at += size;
  }
  return at === buf.length ? packets : undefined;
}

function encode(packets: readonly Packet[]): Buffer {
  return Buffer.concat(
    packets.map((p) =>
      p === 'flush'
        ? Buffer.from('0000')
        : Buffer.concat([Buffer.from((p.length + 4).toString(16).padStart(4, '0')), p]),
    ),
  );
}

const SIDEBAND_MAX = 65515;

function rewriteStatus(packets: Packet[], reasons: ReadonlyMap<string, string>): Packet[] {
  return packets.map((p) => {
    if (p === 'flush') return p;
    const m = /^ng (\S+) pre-receive hook declined\n?$/.exec(p.toString('utf8'));
    const reason = m?.[1] ? reasons.get(m[1]) : undefined;
    return reason && m?.[1] ? Buffer.from(`ng ${m[1]} ${reason}\n`) : p;
  });
}

/**
 * Puts each refused ref's own reason into receive-pack's report-status, where git http-backend
 * only says "pre-receive hook declined": GitHub's client shows
 * `! [remote rejected] <ref> (<reason>)`. Handles a report inside side-band-64k too.
 */
export function rewritePushReport(body: Buffer, reasons: ReadonlyMap<string, string>): Buffer {
  const outer = parse(body);
  if (!outer || reasons.size === 0) return body;
  const first = outer.find((p): p is Buffer => p !== 'flush');
  if (first === undefined || first[0] === undefined || first[0] > 3) {
    return encode(rewriteStatus(outer, reasons));
  }
  const band1 = Buffer.concat(
    outer.filter((p): p is Buffer => p !== 'flush' && p[0] === 1).map((p) => p.subarray(1)),
  );
  const inner = parse(band1);
  if (!inner) return body;
  const report = encode(rewriteStatus(inner, reasons));
  const chunks: Packet[] = [];
  for (let at = 0; at < report.length; at += SIDEBAND_MAX) {
    chunks.push(Buffer.concat([Buffer.from([1]), report.subarray(at, at + SIDEBAND_MAX)]));
  }
  const out: Packet[] = [];
  let placed = false;
  for (const p of outer) {
    if (p !== 'flush' && p[0] === 1) {
      if (!placed) out.push(...chunks);
      placed = true;
    } else out.push(p);
  }
  return encode(out);
}
