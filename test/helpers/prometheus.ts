/** One sample of Prometheus text exposition: `name{a="b",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text (format 0.0.4), as served by `GET /metrics`, read back for assertions. */
export class Exposition {
  readonly samples: Sample[] = [];
  /** Metric family name → its `# TYPE`. */
  readonly types = new Map<string, string>();

  constructor(readonly text: string) {
    for (const line of text.split('\n')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) this.types.set(type[1]!, type[2]!);
      if (!line || line.startsWith('#')) continue;
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a Prometheus sample: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, key, raw] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
        labels[key!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      this.samples.push({ name: match[1]!, labels, value: Number(match[3]) });
    }
  }

  /** Samples of `name` whose labels include `labels`. */
  all(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.samples.filter(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
  }

  /** The value of the one sample of `name` with `labels`; undefined when there is none. */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const found = this.all(name, labels);
    if (found.length > 1)
      throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
    return found[0]?.value;
  }

  /** Sum over every sample of `name` whose labels include `labels`. */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.all(name, labels).reduce((total, s) => total + s.value, 0);
  }
}

export async function scrape(baseUrl: string): Promise<Exposition> {
  const response = await fetch(`${baseUrl}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  return new Exposition(await response.text());
}

/** What `/metrics` must expose for operators (the dashboard and alerts use them), with their types. */
export const REQUIRED_METRICS = {
  agent_coordinator_tasks: 'gauge',
  agent_coordinator_tasks_running: 'gauge',
  agent_coordinator_dispatch_queue_depth: 'gauge',
  agent_coordinator_dispatch_queue_depth_max: 'gauge',
  agent_coordinator_decision_seconds: 'histogram',
  agent_coordinator_webhook_handling_seconds: 'histogram',
  agent_coordinator_attempts_completed_total: 'counter',
  agent_coordinator_github_rate_limit_remaining: 'gauge',
  agent_coordinator_github_rate_limit_limit: 'gauge',
  agent_coordinator_webhook_lag_seconds: 'gauge',
  agent_coordinator_webhook_deliveries: 'gauge',
  agent_coordinator_sweep_seconds: 'histogram',
  agent_coordinator_spend_usd_total: 'counter',
} as const;
