import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMetrics } from '../../src/metrics.js';
import { packageRoot } from '../../src/package-root.js';
import { REQUIRED_METRICS } from '../helpers/prometheus.js';

const read = (name: string) => readFileSync(join(packageRoot(), 'deploy', name), 'utf8');

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: Array<{ expr: string; refId: string; datasource?: { uid: string } }>;
}

interface Rule {
  alert?: string;
  expr?: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Every series name the app serves: histograms as their _bucket, _sum and _count. */
async function exposedNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const metric of await createMetrics().registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
  }
  return names;
}

const referenced = (promql: string) => promql.match(/\bagent_coordinator_\w+/g) ?? [];

/** deploy/grafana-dashboard.json and deploy/alerts.yml stay in step with what /metrics serves. */
describe('monitoring files', () => {
  const dashboard = JSON.parse(read('grafana-dashboard.json')) as {
    schemaVersion: number;
    uid: string;
    templating: { list: Array<{ name: string; type: string; query: unknown }> };
    panels: Panel[];
  };
  const alerts = parse(read('alerts.yml')) as { groups: Array<{ name: string; rules: Rule[] }> };
  const rules = alerts.groups.flatMap((g) => g.rules);
  const graphs = dashboard.panels.filter((p) => p.type !== 'row');
  const dashboardQueries = [
    ...graphs.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
    ...dashboard.templating.list.map((v) => JSON.stringify(v.query)),
  ];

  it('has a dashboard that any Prometheus data source can be picked for', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', query: 'prometheus' }),
    );
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const panel of graphs) {
      expect(panel.datasource?.uid, panel.title).toBe('${DS_PROMETHEUS}');
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? [])
        expect(target.datasource?.uid).toBe('${DS_PROMETHEUS}');
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
    }
  });

  it('charts every metric operators need, and only metrics the app serves', async () => {
    const exposed = await exposedNames();
    const used = new Set(dashboardQueries.flatMap(referenced));
    for (const name of used) expect(exposed, `dashboard uses ${name}`).toContain(name);
    for (const name of Object.keys(REQUIRED_METRICS))
      expect(
        [...used].some((u) => u === name || u.startsWith(`${name}_`)),
        `no panel shows ${name}`,
      ).toBe(true);
  });

  it('has alerts with an expression, a duration, a severity and annotations, over served metrics', async () => {
    const exposed = await exposedNames();
    expect(rules.length).toBeGreaterThan(0);
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    for (const rule of rules) {
      expect(rule.alert, JSON.stringify(rule)).toMatch(/^AgentCoordinator[A-Za-z]+$/);
      expect(rule.expr, rule.alert).toEqual(expect.any(String));
      expect(rule.for, rule.alert).toMatch(/^\d+[smhd]$/);
      expect(rule.labels?.severity, rule.alert).toMatch(/^(warning|critical)$/);
      expect(rule.annotations?.summary, rule.alert).toEqual(expect.any(String));
      expect(rule.annotations?.description, rule.alert).toEqual(expect.any(String));
      for (const name of referenced(rule.expr!))
        expect(exposed, `${rule.alert} uses ${name}`).toContain(name);
    }
  });

  it('name no repository or installation, as /metrics has no such label', async () => {
    const labels = new Set<string>();
    // Each metric keeps the label names it was declared with (not in prom-client's types).
    for (const metric of createMetrics().registry.getMetricsAsArray())
      for (const name of (metric as unknown as { labelNames: string[] }).labelNames)
        labels.add(name);
    expect(labels).toContain('resource');
    for (const forbidden of ['repository', 'installation', 'owner', 'issue'])
      expect(labels).not.toContain(forbidden);
    const queries = [...dashboardQueries, ...rules.map((r) => r.expr!)];
    const annotations = rules.flatMap((r) => Object.values(r.annotations ?? {}));
    const usesName = [
      /\b(?:by|on|without|ignoring)\s*\([^)]*\b(?:repository|installation)\b/,
      /\{[^}]*\b(?:repository|installation)\s*[=!~]/,
      /\$labels\.(?:repository|installation)\b/,
      /\$repository\b/,
    ];
    for (const text of [...queries, ...annotations])
      for (const pattern of usesName) expect(text).not.toMatch(pattern);
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['DS_PROMETHEUS']);
  });

  it('alerts on queue depth, p99 decision latency, failed deliveries and rate-limit exhaustion', () => {
    const alertOn = (test: (expr: string) => boolean) => rules.filter((r) => test(r.expr!));
    expect(alertOn((e) => e.includes('agent_coordinator_dispatch_queue_depth'))).not.toEqual([]);
    expect(
      alertOn(
        (e) =>
          /histogram_quantile\(\s*0\.99/.test(e) &&
          e.includes('agent_coordinator_decision_seconds_bucket'),
      ),
    ).not.toEqual([]);
    expect(
      alertOn((e) => e.includes('agent_coordinator_webhooks_handled_total{outcome="failed"}')),
    ).not.toEqual([]);
    expect(alertOn((e) => e.includes('agent_coordinator_github_rate_limit_remaining'))).not.toEqual(
      [],
    );
  });
});
