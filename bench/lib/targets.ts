// The performance targets of issues 13 and 25, checked against bench/results.json after a run.

export interface Target {
  name: string;
  /** How the target reads, for the printout. */
  target: string;
  /** Undefined: the figure is reported, with no target of its own. */
  met?: (value: number, all: Readonly<Record<string, number>>) => boolean;
}

export const TARGETS: Target[] = [
  { name: 'server_decide_p99_ms_30k', target: '≤ 5 ms', met: (v) => v <= 5 },
  {
    name: 'server_decide_p99_ms_1k',
    target: '30k ≤ 2× this',
    met: (v, all) => (all.server_decide_p99_ms_30k ?? Number.NaN) <= 2 * v,
  },
  { name: 'statements_per_delivery_p50', target: '≤ 6 (fleet)', met: (v) => v <= 6 },
  { name: 'statements_per_delivery_p99', target: 'reported' },
  { name: 'cpu_ms_per_task', target: '≤ 30 ms (coordinator + Postgres)', met: (v) => v <= 30 },
  { name: 'double_cpu_ms_per_task', target: '≤ 10 ms', met: (v) => v <= 10 },
  { name: 'fleet_full_merged', target: '30,000 (full run)', met: (v) => v >= 30_000 },
  {
    name: 'fleet_full_s',
    target: '≤ 900 s, every task merged (full run)',
    // A run cut off by its deadline stops at about 900 s without having merged everything.
    met: (v, all) => v <= 900 && (all.fleet_full_merged ?? 0) >= 30_000,
  },
  { name: 'dispatch_p99_ms', target: '≤ 50 ms (quick fleet)', met: (v) => v <= 50 },
  { name: 'ingest_ratio', target: '≥ 0.6', met: (v) => v >= 0.6 },
  // The production configuration (bench/production.ts), the worker's own calls included.
  { name: 'writes_per_task', target: '≤ 7.5 (production)', met: (v) => v <= 7.5 },
  { name: 'api_calls_per_task', target: '≤ 10 (production)', met: (v) => v <= 10 },
  { name: 'content_creations_per_task', target: '≤ 1.04 (production)', met: (v) => v <= 1.04 },
  {
    name: 'github_bound_tasks_per_hour',
    target: '≥ 480 per installation',
    met: (v) => v >= 480,
  },
  {
    name: 'merge_to_dispatch_p99_ms',
    target: '≤ 1,500 ms, installation ≥ 80% busy',
    // Measured under less load than the target names, it says nothing either way.
    met: (v, all) => v <= 1500 && (all.merge_to_dispatch_write_load ?? 0) >= 0.8,
  },
  { name: 'merge_to_dispatch_write_load', target: 'reported (share of 80 writes/min)' },
  // dispatch.stack (issue 26): label → last merge without / with stacking.
  { name: 'stack_chain_speedup', target: '≥ 2 (chain of five)', met: (v) => v >= 2 },
  { name: 'stack_diamond_ratio', target: '≥ 1 (diamond no slower)', met: (v) => v >= 1 },
  {
    name: 'stack_chain_speedup_review_as_agent',
    target: 'reported (review = agent; bound 1.39)',
  },
  {
    name: 'stack_writes_per_task_ratio',
    target: '≤ 1 (content writes, with / without)',
    met: (v) => v <= 1,
  },
  {
    name: 'stack_content_creations_per_task_ratio',
    target: 'reported (creations, with / without)',
  },
  {
    name: 'stack_writes_per_task_ratio_delete_branch_on_merge',
    target: 'reported (the same with delete_branch_on_merge)',
  },
];

/**
 * One line per target: name, value, target, met or missed. `fresh` holds the names measured in
 * this run; the others come from an earlier run's results.json, and say so.
 */
export function describeTargets(
  results: Readonly<Record<string, number>>,
  fresh: ReadonlySet<string>,
): string[] {
  const width = Math.max(...TARGETS.map((t) => t.name.length));
  return TARGETS.map((t) => {
    const value = results[t.name];
    const shown = value === undefined || value === null ? 'not measured' : String(value);
    const verdict =
      value === undefined || value === null || !Number.isFinite(value)
        ? '-'
        : t.met
          ? t.met(value, results)
            ? 'met'
            : 'MISSED'
          : 'reported';
    const age = value !== undefined && !fresh.has(t.name) ? ' (earlier run)' : '';
    return `${t.name.padEnd(width)}  ${shown.padStart(12)}  ${t.target.padEnd(34)}  ${verdict}${age}`;
  });
}
