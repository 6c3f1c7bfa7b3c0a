import { describe, expect, it } from 'vitest';
import { assignLayers, DEFAULT_SIZE, layoutGraph } from '../../src/dashboard/graph-layout.js';
import { renderGraphSvg } from '../../src/dashboard/graph-svg.js';
import type { TaskView } from '../../src/dashboard/queries.js';

const SPEC = [
  { id: 'task_001', deps: [] },
  { id: 'task_002', deps: ['task_001'] },
  { id: 'task_003', deps: ['task_001'] },
  { id: 'task_004', deps: ['task_002', 'task_003'] },
];

describe('task graph layout', () => {
  it('puts each task one layer below its deepest dependency', () => {
    expect(Object.fromEntries(assignLayers(SPEC))).toEqual({
      task_001: 0,
      task_002: 1,
      task_003: 1,
      task_004: 2,
    });
    expect(
      Object.fromEntries(
        assignLayers([
          { id: 'a', deps: [] },
          { id: 'b', deps: ['a'] },
          { id: 'c', deps: ['a', 'b'] },
        ]),
      ),
    ).toEqual({ a: 0, b: 1, c: 2 });
  });

  it('places boxes without overlap and points every edge down', () => {
    const layout = layoutGraph(SPEC);
    expect(layout.layers).toBe(3);
    const { nodeWidth, nodeHeight } = DEFAULT_SIZE;
    for (const a of layout.nodes)
      for (const b of layout.nodes) {
        if (a === b) continue;
        const apart =
          a.x + nodeWidth <= b.x ||
          b.x + nodeWidth <= a.x ||
          a.y + nodeHeight <= b.y ||
          b.y + nodeHeight <= a.y;
        expect(apart).toBe(true);
      }
    expect(layout.edges).toHaveLength(4);
    for (const e of layout.edges) expect(e.y2).toBeGreaterThan(e.y1);
    for (const n of layout.nodes) {
      expect(n.x).toBeGreaterThanOrEqual(0);
      expect(n.x + nodeWidth).toBeLessThanOrEqual(layout.width);
      expect(n.y + nodeHeight).toBeLessThanOrEqual(layout.height);
    }
  });

  it('orders a layer by where its dependencies sit, keeping chains straight', () => {
    const layout = layoutGraph([
      { id: 'left', deps: [] },
      { id: 'right', deps: [] },
      { id: 'under_right', deps: ['right'] },
      { id: 'under_left', deps: ['left'] },
    ]);
    const x = (id: string) => layout.nodes.find((n) => n.id === id)!.x;
    expect(x('under_left')).toBeLessThan(x('under_right'));
    expect(x('under_left')).toBe(x('left'));
  });

  it('still draws every task when the input has a cycle or unknown deps', () => {
    const layers = assignLayers([
      { id: 'a', deps: ['b'] },
      { id: 'b', deps: ['a'] },
      { id: 'c', deps: ['ghost'] },
    ]);
    expect(layers.get('c')).toBe(0);
    expect(new Set([layers.get('a'), layers.get('b')]).size).toBe(2);
    expect(layoutGraph([]).nodes).toEqual([]);
  });

  it('draws links only to http(s) URLs and escapes ids and titles', () => {
    const task = (over: Partial<TaskView>): TaskView => ({
      id: 1,
      key: 'a',
      title: 'A',
      type: 'default',
      state: 'in_review',
      priority: 3,
      deps: [],
      attemptCount: 1,
      held: false,
      vetoReason: null,
      prNumber: 5,
      lastRunUrl: 'javascript:alert(1)',
      costUsd: 0,
      updatedAt: new Date(),
      ...over,
    });
    const svg = renderGraphSvg([task({ title: '</text><script>x</script>' })], {
      pull: (n) => `https://github.com/o/r/pull/${n}`,
    }).value;
    expect(svg).toContain('href="https://github.com/o/r/pull/5"');
    expect(svg).not.toContain('javascript:');
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;/text&gt;&lt;script&gt;');
  });
});
