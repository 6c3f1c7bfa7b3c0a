import fc from 'fast-check';
import { it } from 'vitest';
import { decideMerges } from '../../../src/core/merge/index.js';
import { snapshotArbForStats } from './decide-merges.property.test.js';
it('stats', () => {
  const counts: Record<string, number> = {};
  for (const s of fc.sample(snapshotArbForStats, 2000))
    for (const d of decideMerges(s)) {
      const k = d.kind === 'wait' ? d.reason : d.kind;
      counts[k] = (counts[k] ?? 0) + 1;
    }
  console.log(counts);
});
