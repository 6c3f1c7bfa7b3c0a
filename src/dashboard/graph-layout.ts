// A layered layout of the task graph, top to bottom like `graph TD`: a task's layer is the
// length of the longest dependency chain above it, so every edge points down. Within a layer,
// tasks sit near the average position of their dependencies (one barycentre pass per layer),
// which keeps most edges short and uncrossed without a layout library.

export interface LayoutNodeInput {
  id: string;
  deps: readonly string[];
}

export interface PlacedNode {
  id: string;
  layer: number;
  /** Position within the layer, 0-based, left to right. */
  order: number;
  /** Top-left corner. */
  x: number;
  y: number;
}

export interface PlacedEdge {
  from: string;
  to: string;
  /** Bottom centre of `from` and top centre of `to`. */
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface GraphLayout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
  layers: number;
}

export interface LayoutSize {
  nodeWidth: number;
  nodeHeight: number;
  gapX: number;
  gapY: number;
  padding: number;
}

export const DEFAULT_SIZE: LayoutSize = {
  nodeWidth: 220,
  nodeHeight: 66,
  gapX: 28,
  gapY: 56,
  padding: 16,
};

/** Longest-path layering; unknown deps are ignored, and tasks on a cycle go below the rest. */
export function assignLayers(nodes: readonly LayoutNodeInput[]): Map<string, number> {
  const ids = new Set(nodes.map((n) => n.id));
  const deps = new Map(nodes.map((n) => [n.id, [...new Set(n.deps)].filter((d) => ids.has(d))]));
  const dependents = new Map<string, string[]>(nodes.map((n) => [n.id, []]));
  const waiting = new Map<string, number>();
  for (const [id, list] of deps) {
    waiting.set(id, list.length);
    for (const dep of list) dependents.get(dep)?.push(id);
  }
  const layer = new Map<string, number>();
  const queue = nodes.filter((n) => waiting.get(n.id) === 0).map((n) => n.id);
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    const mine = Math.max(-1, ...(deps.get(id) ?? []).map((d) => layer.get(d) ?? -1)) + 1;
    layer.set(id, mine);
    for (const next of dependents.get(id) ?? []) {
      const left = (waiting.get(next) ?? 0) - 1;
      waiting.set(next, left);
      if (left === 0) queue.push(next);
    }
  }
  // A validated plan has no cycle; should one reach here anyway, still draw every task.
  let bottom = Math.max(-1, ...layer.values());
  for (const n of nodes) if (!layer.has(n.id)) layer.set(n.id, ++bottom);
  return layer;
}

export function layoutGraph(
  nodes: readonly LayoutNodeInput[],
  size: LayoutSize = DEFAULT_SIZE,
): GraphLayout {
  const layerOf = assignLayers(nodes);
  const layerCount = nodes.length === 0 ? 0 : Math.max(...layerOf.values()) + 1;
  const planIndex = new Map(nodes.map((n, i) => [n.id, i]));
  const rows: string[][] = Array.from({ length: layerCount }, () => []);
  for (const n of nodes) rows[layerOf.get(n.id) ?? 0]!.push(n.id);

  const orderOf = new Map<string, number>();
  const depsOf = new Map(nodes.map((n) => [n.id, n.deps]));
  rows.forEach((row, index) => {
    if (index > 0) {
      const centre = (id: string): number => {
        const placed = (depsOf.get(id) ?? [])
          .map((d) => orderOf.get(d))
          .filter((o): o is number => o !== undefined);
        return placed.length === 0
          ? Number.POSITIVE_INFINITY
          : placed.reduce((a, b) => a + b, 0) / placed.length;
      };
      const score = new Map(row.map((id) => [id, centre(id)]));
      row.sort(
        (a, b) => score.get(a)! - score.get(b)! || planIndex.get(a)! - planIndex.get(b)! || 0,
      );
    }
    // Orders are normalised to the widest layer's scale so barycentres compare across layers.
    row.forEach((id, i) => orderOf.set(id, row.length > 1 ? i / (row.length - 1) : 0.5));
  });

  const { nodeWidth, nodeHeight, gapX, gapY, padding } = size;
  const widest = Math.max(0, ...rows.map((r) => r.length));
  const width = padding * 2 + Math.max(nodeWidth, widest * nodeWidth + (widest - 1) * gapX);
  const height =
    padding * 2 + (layerCount === 0 ? 0 : layerCount * nodeHeight + (layerCount - 1) * gapY);

  const placed = new Map<string, PlacedNode>();
  rows.forEach((row, layer) => {
    const rowWidth = row.length * nodeWidth + (row.length - 1) * gapX;
    const left = (width - rowWidth) / 2;
    row.forEach((id, order) => {
      placed.set(id, {
        id,
        layer,
        order,
        x: left + order * (nodeWidth + gapX),
        y: padding + layer * (nodeHeight + gapY),
      });
    });
  });

  const edges: PlacedEdge[] = [];
  for (const n of nodes) {
    const to = placed.get(n.id)!;
    for (const dep of new Set(n.deps)) {
      const from = placed.get(dep);
      if (!from) continue;
      edges.push({
        from: dep,
        to: n.id,
        x1: from.x + nodeWidth / 2,
        y1: from.y + nodeHeight,
        x2: to.x + nodeWidth / 2,
        y2: to.y,
      });
    }
  }
  return {
    nodes: nodes.map((n) => placed.get(n.id)!),
    edges,
    width,
    height,
    layers: layerCount,
  };
}
