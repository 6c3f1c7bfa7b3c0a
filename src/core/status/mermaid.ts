import type { TaskState } from '../states.js';
import { mermaidLabel, truncate } from './escape.js';
import type { StatusTaskView } from './types.js';

// GitHub renders big graphs badly (and Mermaid refuses > 500 edges or > 50,000 characters).
export const MAX_GRAPH_TASKS = 200;
export const MAX_GRAPH_EDGES = 500;

const STYLE: Readonly<Record<TaskState, string>> = {
  pending: 'fill:#ffffff,stroke:#6e7781,color:#1f2328',
  dispatched: 'fill:#0969da,stroke:#0550ae,color:#ffffff',
  running: 'fill:#0969da,stroke:#0550ae,color:#ffffff',
  in_review: 'fill:#fff8c5,stroke:#bf8700,color:#1f2328',
  approved: 'fill:#fff8c5,stroke:#bf8700,color:#1f2328',
  merging: 'fill:#fff8c5,stroke:#bf8700,color:#1f2328',
  merged: 'fill:#2da44e,stroke:#1a7f37,color:#ffffff',
  failed: 'fill:#cf222e,stroke:#a40e26,color:#ffffff',
  vetoed: 'fill:#cf222e,stroke:#a40e26,color:#ffffff',
  rejected: 'fill:#cf222e,stroke:#a40e26,color:#ffffff',
  blocked: 'fill:#d0d7de,stroke:#6e7781,color:#1f2328',
  cancelled: 'fill:#d0d7de,stroke:#6e7781,color:#1f2328',
};

export type GraphResult = { ok: true; markdown: string } | { ok: false; why: string };

/**
 * The ```mermaid block. Node ids are generated (`t0`, `t1`, ...) so a task id never reaches
 * Mermaid syntax; ids and titles only appear inside escaped, quoted labels.
 */
export function renderMermaidGraph(
  tasks: readonly StatusTaskView[],
  maxChars: number,
): GraphResult {
  if (tasks.length > MAX_GRAPH_TASKS) {
    return { ok: false, why: `more than ${MAX_GRAPH_TASKS} tasks` };
  }
  const nodeOf = new Map<string, string>();
  tasks.forEach((task, i) => {
    if (!nodeOf.has(task.id)) nodeOf.set(task.id, `t${i}`);
  });

  const lines = ['```mermaid', 'graph TD'];
  const byState = new Map<TaskState, string[]>();
  tasks.forEach((task, i) => {
    const node = `t${i}`;
    lines.push(`  ${node}[${mermaidLabel(`${truncate(task.id, 40)}: ${task.title}`, 80)}]`);
    const group = byState.get(task.state);
    if (group) group.push(node);
    else byState.set(task.state, [node]);
  });

  let edges = 0;
  for (const [i, task] of tasks.entries()) {
    for (const dep of new Set(task.deps)) {
      const from = nodeOf.get(dep);
      if (from === undefined) continue;
      if (++edges > MAX_GRAPH_EDGES) {
        return { ok: false, why: `more than ${MAX_GRAPH_EDGES} dependencies` };
      }
      lines.push(`  ${from} --> t${i}`);
    }
  }

  for (const [state, nodes] of byState) {
    lines.push(`  classDef ${state} ${STYLE[state]}`);
    lines.push(`  class ${nodes.join(',')} ${state}`);
  }
  lines.push('```');
  const markdown = lines.join('\n');
  if (markdown.length > maxChars) return { ok: false, why: 'the graph is too large to show' };
  return { ok: true, markdown };
}
