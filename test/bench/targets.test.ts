import { describe, expect, it } from 'vitest';
import { describeTargets } from '../../bench/lib/targets.js';

const line = (results: Record<string, number>, name: string) =>
  describeTargets(results, new Set(Object.keys(results))).find((l) => l.startsWith(`${name} `));

describe('the production targets', () => {
  it('count merge → dispatch as met only under the load the target names', () => {
    expect(
      line(
        { merge_to_dispatch_p99_ms: 900, merge_to_dispatch_write_load: 0.85 },
        'merge_to_dispatch_p99_ms',
      ),
    ).toMatch(/ met$/);
    expect(
      line(
        { merge_to_dispatch_p99_ms: 900, merge_to_dispatch_write_load: 0.5 },
        'merge_to_dispatch_p99_ms',
      ),
    ).toMatch(/MISSED$/);
    expect(
      line(
        { merge_to_dispatch_p99_ms: 2000, merge_to_dispatch_write_load: 0.9 },
        'merge_to_dispatch_p99_ms',
      ),
    ).toMatch(/MISSED$/);
  });

  it('hold the bound at 480 tasks an hour', () => {
    expect(line({ github_bound_tasks_per_hour: 485 }, 'github_bound_tasks_per_hour')).toMatch(
      / met$/,
    );
    expect(line({ github_bound_tasks_per_hour: 409 }, 'github_bound_tasks_per_hour')).toMatch(
      /MISSED$/,
    );
  });
});
