// The benchmark's in-memory baseline (bench/in-memory-scheduler/): bench/scheduling.ts times it
// against the seed's scan, so its answers must be right for the comparison to mean anything.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReadyQueue } from '../../../bench/in-memory-scheduler/ready-queue.js';
import { compareCandidates, type Candidate } from '../../../src/core/scheduler/index.js';
import { candidate, key } from '../../core/scheduler/builders.js';

function drain(queue: ReadyQueue): string[] {
  const out: string[] = [];
  for (let c = queue.pop(); c; c = queue.pop()) out.push(c.taskId);
  return out;
}

describe('ReadyQueue', () => {
  it('pops by priority desc, then oldest first', () => {
    const queue = new ReadyQueue();
    queue.push(candidate({ taskId: 'low_old', priority: 1, order: 1 }));
    queue.push(candidate({ taskId: 'high_new', priority: 5, order: 9 }));
    queue.push(candidate({ taskId: 'mid_new', priority: 3, order: 8 }));
    queue.push(candidate({ taskId: 'mid_old', priority: 3, order: 2 }));
    expect(queue.peek()?.taskId).toBe('high_new');
    expect(drain(queue)).toEqual(['high_new', 'mid_old', 'mid_new', 'low_old']);
  });

  it('removes by key and replaces on a repeated key', () => {
    const queue = new ReadyQueue();
    queue.push(candidate({ taskId: 'a', order: 1 }));
    queue.push(candidate({ taskId: 'b', order: 2 }));
    queue.push(candidate({ taskId: 'c', order: 3 }));
    expect(queue.remove('run1:a')?.taskId).toBe('a');
    expect(queue.remove('run1:a')).toBeUndefined();
    queue.push(candidate({ taskId: 'c', order: 3, priority: 5 }));
    expect(queue.size).toBe(2);
    expect(drain(queue)).toEqual(['c', 'b']);
  });

  it('behaves like a sorted list under any push/remove/pop sequence', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('push' as const),
        id: fc.integer({ min: 0, max: 30 }),
        priority: fc.integer({ min: 1, max: 5 }),
        order: fc.integer({ min: 0, max: 50 }),
      }),
      fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ kind: fc.constant('pop' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const queue = new ReadyQueue();
        const model = new Map<string, Candidate>();
        for (const o of ops) {
          if (o.kind === 'push') {
            const c = candidate({ taskId: `t${o.id}`, priority: o.priority, order: o.order });
            queue.push(c);
            model.set(key(c), c);
          } else if (o.kind === 'remove') {
            queue.remove(`run1:t${o.id}`);
            model.delete(`run1:t${o.id}`);
          } else {
            const best = [...model.values()].sort(compareCandidates)[0];
            expect(queue.pop()).toEqual(best);
            if (best) model.delete(key(best));
          }
          expect(queue.size).toBe(model.size);
        }
        expect(drain(queue)).toEqual(
          [...model.values()].sort(compareCandidates).map((c) => c.taskId),
        );
      }),
    );
  });
});
