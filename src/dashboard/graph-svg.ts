import { TASK_COLORS } from './colors.js';
import { clip } from './format.js';
import { html, safeUrl, type SafeHtml } from './html.js';
import { DEFAULT_SIZE, layoutGraph } from './graph-layout.js';
import type { TaskView } from './queries.js';

/** Beyond this the picture is unreadable anyway; the task table still lists everything. */
export const MAX_DRAWN_TASKS = 300;

export interface GraphLinks {
  pull(number: number): string;
}

const STATE_LABEL = (state: string): string => state.replace('_', ' ');

/**
 * The task graph as inline SVG: one box per task coloured by its state, an arrow from each
 * dependency to its dependent, and in each box links to the task's PR and its latest
 * workflow run. Every string from the plan goes through `html`, so it stays text.
 */
export function renderGraphSvg(tasks: readonly TaskView[], links: GraphLinks): SafeHtml {
  if (tasks.length === 0) return html`<p class="muted">No tasks yet.</p>`;
  if (tasks.length > MAX_DRAWN_TASKS) {
    return html`<p class="muted">
      ${tasks.length} tasks: too many to draw; the table below lists them all.
    </p>`;
  }
  const size = DEFAULT_SIZE;
  const layout = layoutGraph(
    tasks.map((t) => ({ id: t.key, deps: t.deps })),
    size,
  );
  const byKey = new Map(tasks.map((t) => [t.key, t]));
  const stateOf = (key: string) => byKey.get(key)?.state ?? 'pending';

  const edges = layout.edges.map((e) => {
    const bend = Math.max(20, (e.y2 - e.y1) / 2);
    const d = `M ${e.x1} ${e.y1} C ${e.x1} ${e.y1 + bend}, ${e.x2} ${e.y2 - bend}, ${e.x2} ${e.y2 - 6}`;
    return html`<path
      class="edge${stateOf(e.from) === 'merged' ? ' edge-done' : ''}"
      data-from="${e.from}"
      data-to="${e.to}"
      d="${d}"
      marker-end="url(#arrow)"
    ></path>`;
  });

  const nodes = layout.nodes.map((n) => {
    const task = byKey.get(n.id)!;
    const color = TASK_COLORS[task.state];
    const pr = task.prNumber === null ? undefined : safeUrl(links.pull(task.prNumber));
    const run = safeUrl(task.lastRunUrl);
    const cx = n.x + 10;
    const linkY = n.y + size.nodeHeight - 12;
    const prLink = pr
      ? html`<a class="pr-link" href="${pr}" target="_blank" rel="noopener noreferrer"
          ><text x="${cx}" y="${linkY}" fill="${color.text}">PR #${task.prNumber ?? ''}</text></a
        >`
      : html`<text x="${cx}" y="${linkY}" fill="${color.text}" class="faint">no PR</text>`;
    const runLink = run
      ? html`<a class="run-link" href="${run}" target="_blank" rel="noopener noreferrer"
          ><text x="${cx + 78}" y="${linkY}" fill="${color.text}"
            >run ${task.attemptCount > 1 ? `(attempt ${task.attemptCount})` : ''}↗</text
          ></a
        >`
      : '';
    return html`<g class="node" data-task="${task.key}" data-state="${task.state}">
      <title>${task.key}: ${task.title} (${STATE_LABEL(task.state)})</title>
      <rect
        x="${n.x}"
        y="${n.y}"
        width="${size.nodeWidth}"
        height="${size.nodeHeight}"
        rx="8"
        fill="${color.fill}"
        stroke="${color.stroke}"
        stroke-width="1.5"
      ></rect>
      <text x="${cx}" y="${n.y + 18}" fill="${color.text}" class="node-id"
        >${clip(task.key, 22)}</text
      >
      <text
        x="${n.x + size.nodeWidth - 10}"
        y="${n.y + 18}"
        fill="${color.text}"
        class="node-state"
        text-anchor="end"
        >${STATE_LABEL(task.state)}</text
      >
      <text x="${cx}" y="${n.y + 36}" fill="${color.text}" class="node-title"
        >${clip(task.title, 30)}</text
      >
      ${prLink}${runLink}
    </g>`;
  });

  return html`<svg
    id="graph"
    xmlns="http://www.w3.org/2000/svg"
    role="img"
    aria-label="Task graph"
    width="${layout.width}"
    height="${layout.height}"
    viewBox="0 0 ${layout.width} ${layout.height}"
  >
    <defs>
      <marker
        id="arrow"
        viewBox="0 0 10 10"
        refX="9"
        refY="5"
        markerWidth="8"
        markerHeight="8"
        orient="auto-start-reverse"
      >
        <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head"></path>
      </marker>
    </defs>
    <g class="edges">${edges}</g>
    <g class="nodes">${nodes}</g>
  </svg>`;
}
