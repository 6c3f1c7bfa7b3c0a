import type { Logger } from 'pino';
import type { Probot } from 'probot';
import { crashPoint } from '../crash-points.js';
import type { DeliveryStore } from '../store/deliveries.js';

/** GitHub keeps an App's delivery log for three days. */
const LOG_RETENTION_MS = 3 * 24 * 60 * 60_000;
/** Each scan reads back this far past the previous one: what was in flight then has its answer now. */
const OVERLAP_MS = 10 * 60_000;
/** A redelivery asked for is not asked for again this soon (it may still be on its way). */
const ASK_AGAIN_AFTER_MS = 2 * 60_000;
/** Redeliveries asked for in one scan; the rest wait for the next sweep. */
const MAX_PER_SCAN = 100;

/** The fields of GitHub's `hook-delivery-item` this module reads. */
interface DeliveryItem {
  id: number;
  guid: string;
  delivered_at: string;
  status_code: number;
  event: string;
  action?: string | null;
}

export interface RedeliveryOptions {
  probot: Pick<Probot, 'auth'>;
  deliveries: Pick<DeliveryStore, 'get'>;
  log: Logger;
}

export interface RedeliveryReport {
  scanned: number;
  requested: number;
}

/**
 * Deliveries GitHub could not hand us (we were down, or answered non-2xx) are asked for again
 * through the App's delivery log (`/app/hook/deliveries`), as GitHub's own guide does: an event
 * counts as delivered when any attempt of its guid got a 2xx, or when our inbox holds its id.
 * The first scan of a process reads the whole three days GitHub keeps; later ones read back to
 * the previous scan, with an overlap.
 */
export function createRedeliverer(options: RedeliveryOptions): () => Promise<RedeliveryReport> {
  let lastScanStartedAt: number | undefined;
  const asked = new Map<string, number>();

  return async function redeliverFailed(): Promise<RedeliveryReport> {
    const started = Date.now();
    const cutoff = Math.max(
      started - LOG_RETENTION_MS,
      lastScanStartedAt === undefined ? -Infinity : lastScanStartedAt - OVERLAP_MS,
    );
    // No installation id: authenticated as the App itself (JWT), which the delivery log needs.
    const octokit = await options.probot.auth();
    const delivered = new Set<string>();
    const failed = new Map<string, DeliveryItem>();
    let scanned = 0;
    // Newest first; the first failure seen of a guid is its latest attempt.
    pages: for await (const page of octokit.paginate.iterator('GET /app/hook/deliveries', {
      per_page: 100,
    })) {
      for (const item of page.data as DeliveryItem[]) {
        if (Date.parse(item.delivered_at) < cutoff) break pages;
        scanned += 1;
        if (item.status_code >= 200 && item.status_code < 300) delivered.add(item.guid);
        else if (!failed.has(item.guid)) failed.set(item.guid, item);
      }
    }

    for (const [guid, at] of asked) if (started - at >= ASK_AGAIN_AFTER_MS) asked.delete(guid);
    let requested = 0;
    // Oldest first, the order they happened in.
    for (const [guid, item] of [...failed].reverse()) {
      if (requested >= MAX_PER_SCAN) break;
      if (delivered.has(guid) || asked.has(guid)) continue;
      // Stored but not acknowledged (a crash before the 202): the inbox handles it already.
      if (await options.deliveries.get(guid)) continue;
      await octokit.request('POST /app/hook/deliveries/{delivery_id}/attempts', {
        delivery_id: item.id,
      });
      asked.set(guid, started);
      requested += 1;
      options.log.info(
        { delivery: guid, event: item.event, action: item.action, statusCode: item.status_code },
        'failed webhook delivery: redelivery requested',
      );
      crashPoint('redeliver.requested');
    }
    if (requested < MAX_PER_SCAN) lastScanStartedAt = started;
    return { scanned, requested };
  };
}
