// Graph algorithms over the task list. Everything is iterative: a plan is untrusted input
// and a long dependency chain must not overflow the stack.

export interface GraphTask {
  id: string;
  deps: readonly string[];
}

interface Graph {
  ids: string[];
  /** edges[i] = indices of the tasks that task i depends on (known ids only). */
  edges: number[][];
}

// A repeated id is one node; its deps are merged. Deps on unknown ids are ignored here:
// they are reported elsewhere and cannot be part of a cycle.
function buildGraph(tasks: ReadonlyArray<GraphTask>): Graph {
  const index = new Map<string, number>();
  const ids: string[] = [];
  for (const task of tasks) {
    if (!index.has(task.id)) {
      index.set(task.id, ids.length);
      ids.push(task.id);
    }
  }
  const edges: number[][] = ids.map(() => []);
  for (const task of tasks) {
    const from = index.get(task.id)!;
    for (const dep of task.deps) {
      const to = index.get(dep);
      if (to !== undefined) edges[from]!.push(to);
    }
  }
  return { ids, edges };
}

/** Tarjan's SCC algorithm, iteratively: marks every node that lies on some cycle. */
function nodesOnCycles(edges: number[][]): Uint8Array {
  const n = edges.length;
  const order = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const next = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const onCycle = new Uint8Array(n);
  const stack: number[] = [];
  let counter = 0;

  for (let root = 0; root < n; root++) {
    if (order[root] !== -1) continue;
    const call: number[] = [root];
    order[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (call.length > 0) {
      const v = call[call.length - 1]!;
      const adj = edges[v]!;
      if (next[v]! < adj.length) {
        const w = adj[next[v]!++]!;
        if (w === v) onCycle[v] = 1;
        if (order[w] === -1) {
          order[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          call.push(w);
        } else if (onStack[w]) {
          low[v] = Math.min(low[v]!, order[w]!);
        }
        continue;
      }
      call.pop();
      const parent = call[call.length - 1];
      if (parent !== undefined) low[parent] = Math.min(low[parent]!, low[v]!);
      if (low[v] === order[v]) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component.push(w);
        } while (w !== v);
        if (component.length > 1) for (const c of component) onCycle[c] = 1;
      }
    }
  }
  return onCycle;
}

/** Shortest cycle through `start` by BFS along deps; `start` must be on a cycle. */
function cycleThrough(start: number, edges: number[][]): number[] {
  const parent = new Int32Array(edges.length).fill(-1);
  const queue: number[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head]!;
    for (const w of edges[v]!) {
      if (w === start) {
        const path: number[] = [start];
        for (let u = v; u !== start; u = parent[u]!) path.push(u);
        path.push(start);
        // path is start, v, ..., start read backwards; put it in dependency direction
        const middle = path.slice(1, -1).reverse();
        return [start, ...middle, start];
      }
      if (parent[w] === -1 && w !== start) {
        parent[w] = v;
        queue.push(w);
      }
    }
  }
  return [start, start]; // unreachable when start is on a cycle
}

/**
 * One dependency cycle, as ids with the first repeated at the end (`a` depends on `b`
 * depends on `a` → ['a', 'b', 'a']), or null. Deterministic: it starts at the first task
 * in list order that lies on any cycle, and is the shortest cycle through that task.
 */
export function findCycle(tasks: ReadonlyArray<GraphTask>): string[] | null {
  const { ids, edges } = buildGraph(tasks);
  const onCycle = nodesOnCycles(edges);
  const start = onCycle.indexOf(1);
  if (start === -1) return null;
  return cycleThrough(start, edges).map((i) => ids[i]!);
}

/**
 * Topological order, deps first, ties broken by list order (Kahn with a min-heap on the
 * list index). Tasks on a cycle are left out, so the result is shorter than the input
 * exactly when there is a cycle.
 */
export function topologicalOrder(tasks: ReadonlyArray<GraphTask>): string[] {
  const { ids, edges } = buildGraph(tasks);
  const n = ids.length;
  const waitingOn = new Int32Array(n);
  const dependents: number[][] = ids.map(() => []);
  for (let v = 0; v < n; v++) {
    const seen = new Set<number>();
    for (const w of edges[v]!) {
      if (seen.has(w)) continue;
      seen.add(w);
      waitingOn[v]!++;
      dependents[w]!.push(v);
    }
  }
  const heap = new MinHeap();
  for (let v = 0; v < n; v++) if (waitingOn[v] === 0) heap.push(v);
  const order: string[] = [];
  while (heap.size > 0) {
    const v = heap.pop();
    order.push(ids[v]!);
    for (const d of dependents[v]!) if (--waitingOn[d]! === 0) heap.push(d);
  }
  return order;
}

class MinHeap {
  private readonly items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(value: number): void {
    const items = this.items;
    let i = items.push(value) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (items[p]! <= value) break;
      items[i] = items[p]!;
      i = p;
    }
    items[i] = value;
  }

  pop(): number {
    const items = this.items;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= items.length) break;
        const r = l + 1;
        const c = r < items.length && items[r]! < items[l]! ? r : l;
        if (items[c]! >= last) break;
        items[i] = items[c]!;
        i = c;
      }
      items[i] = last;
    }
    return top;
  }
}
