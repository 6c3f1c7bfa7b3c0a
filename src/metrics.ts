import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type Metrics = ReturnType<typeof createMetrics>;

/** One registry per app instance, so tests can run several apps in one process. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'agent_coordinator_' });
  return {
    registry,
    webhooksReceived: new Counter({
      name: 'agent_coordinator_webhooks_received_total',
      help: 'Webhook deliveries received, by event and ingest outcome (accepted, duplicate, rejected).',
      labelNames: ['event', 'outcome'] as const,
      registers: [registry],
    }),
    webhooksHandled: new Counter({
      name: 'agent_coordinator_webhooks_handled_total',
      help: 'Webhook deliveries handled, by event and outcome (ok, retry, failed).',
      labelNames: ['event', 'outcome'] as const,
      registers: [registry],
    }),
    webhookIngestSeconds: new Histogram({
      name: 'agent_coordinator_webhook_ingest_seconds',
      help: 'Time from request to acknowledgement of a webhook delivery.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    webhookHandlingSeconds: new Histogram({
      name: 'agent_coordinator_webhook_handling_seconds',
      help: 'Time spent handling a webhook delivery after it was acknowledged.',
      labelNames: ['event'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
}
