import type { IncomingMessage, ServerResponse } from 'node:http';
import { Webhooks } from '@octokit/webhooks';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import type { DeliveryStore } from '../store/deliveries.js';
import { crashPoint } from '../crash-points.js';
import { parseWebhookBody } from './payload.js';
import type { IngestPressure } from './pressure.js';
import { HeldBytes, readBody } from './unverified-body.js';

/** GitHub caps webhook payloads at 25 MB. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

/**
 * The bytes of bodies not yet verified that the ingest holds at once, across requests: anyone can
 * send a body with some signature header, and each is kept whole until its HMAC is checked. Two
 * of GitHub's largest payloads fit; a request beyond it is answered 503 (a delivery GitHub marks
 * failed, which the sweep redelivers: docs/running.md, "The sweep").
 */
export const MAX_UNVERIFIED_BYTES = 2 * MAX_WEBHOOK_BYTES;

export interface IngestDeps {
  secret: string;
  deliveries: DeliveryStore;
  metrics: Metrics;
  log: Logger;
  /** Called after a delivery is stored and acknowledged: handling happens after the answer. */
  onAccepted: (deliveryId: string) => void;
  /**
   * Whether some handler acts on this event: when not, the delivery is stored as handled (the
   * ledger still knows its id) and the processor is not told. Every delivery is handled without it.
   */
  actsOn?: (event: string, action: string | undefined, payload: Record<string, unknown>) => boolean;
  /** Told about every request from arrival to answer. */
  pressure?: IngestPressure;
  maxBytes?: number;
  maxUnverifiedBytes?: number;
}

type Answer = {
  status: number;
  body: string;
  outcome: 'accepted' | 'duplicate' | 'rejected';
  /** The signature matched: the event header is GitHub's, and may name a metric's series. */
  verified?: boolean;
};

/**
 * Verify, store, acknowledge. Nothing else happens before the answer, so GitHub's
 * 10-second limit is met whatever the handlers do; a stored delivery is never lost.
 */
export function createWebhookIngest(deps: IngestDeps) {
  const maxBytes = deps.maxBytes ?? MAX_WEBHOOK_BYTES;
  const held = new HeldBytes(deps.maxUnverifiedBytes ?? MAX_UNVERIFIED_BYTES);
  // Only its HMAC-SHA256 check (X-Hub-Signature-256, compared in constant time) is used here:
  // handling happens later, from the stored delivery.
  const webhooks = new Webhooks({ secret: deps.secret });
  return async function ingest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const event = header(req, 'x-github-event');
    deps.pressure?.enter();
    let answer: Answer;
    try {
      answer = await decide(req, event);
    } finally {
      deps.pressure?.leave(Number(process.hrtime.bigint() - started) / 1e6);
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    // Only a verified delivery's event names a series: an unsigned request's header is anyone's,
    // and each new value would be a series kept for the life of the process.
    const label = answer.verified && event ? event : 'unverified';
    deps.metrics.webhooksReceived.inc({ event: label, outcome: answer.outcome });
    deps.metrics.webhookIngestSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
  };

  async function decide(req: IncomingMessage, event: string | undefined): Promise<Answer> {
    if (req.method !== 'POST') return reject(405, 'use POST');
    const id = header(req, 'x-github-delivery');
    const signature = header(req, 'x-hub-signature-256');
    if (!event || !id) return reject(400, 'missing X-GitHub-Event or X-GitHub-Delivery header');
    if (!/^[\w.-]{1,100}$/.test(id) || !/^[a-z_]{1,64}$/.test(event))
      return reject(400, 'malformed X-GitHub-Event or X-GitHub-Delivery header');
    if (!signature) return reject(401, 'missing X-Hub-Signature-256 header');

    const read = await readBody(req, maxBytes, held);
    if (read === 'too_large') return reject(413, `payload larger than ${maxBytes} bytes`);
    if (read === 'busy') {
      deps.log.warn({ delivery: id, event }, 'too many unverified webhook bytes in flight; 503');
      return reject(503, 'too many deliveries in flight; try again');
    }

    let valid: boolean;
    try {
      valid = await webhooks.verify(read.body, signature);
    } catch {
      valid = false;
    } finally {
      read.release();
    }
    if (!valid) {
      deps.log.warn({ delivery: id, event }, 'webhook signature does not match; rejected');
      return reject(401, 'signature does not match');
    }
    // Signed by GitHub: whatever happens next, the event header is GitHub's.
    return { ...(await store(read.body, id, event)), verified: true };
  }

  /** A verified delivery: parsed, recorded once by its id, acknowledged. */
  async function store(body: string, id: string, event: string): Promise<Answer> {
    const payload = parseWebhookBody(body);
    if (!payload) return reject(400, 'payload is not a JSON object');

    try {
      const action = typeof payload.action === 'string' ? payload.action : undefined;
      const handled = deps.actsOn ? !deps.actsOn(event, action, payload) : false;
      const outcome = await deps.deliveries.record({
        id,
        event,
        action,
        installationId: numericId(payload.installation),
        repositoryId: numericId(payload.repository),
        body,
        handled,
      });
      if (outcome === 'accepted') {
        crashPoint('ingest.stored');
        if (handled)
          deps.log.debug({ delivery: id, event }, 'delivery recorded; no handler acts on it');
        else deps.onAccepted(id);
        return { status: 202, body: JSON.stringify({ ok: true, delivery: id }), outcome };
      }
      return { status: 200, body: JSON.stringify({ ok: true, duplicate: true }), outcome };
    } catch (error) {
      // Not stored: answer non-2xx so GitHub marks it failed and the sweep can redeliver it.
      deps.log.error({ err: error, delivery: id, event }, 'could not store webhook delivery');
      return {
        status: 503,
        body: JSON.stringify({ error: 'storage unavailable' }),
        outcome: 'rejected',
      };
    }
  }
}

function reject(status: number, message: string): Answer {
  return { status, body: JSON.stringify({ error: message }), outcome: 'rejected' };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function numericId(value: unknown): number | undefined {
  if (value && typeof value === 'object' && 'id' in value) {
    const id = (value as { id: unknown }).id;
    if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
  }
  return undefined;
}
