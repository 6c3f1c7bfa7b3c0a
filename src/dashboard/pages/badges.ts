import type { RunState, TaskState } from '../../core/states.js';
import { formatUsd } from '../format.js';
import { html, type SafeHtml } from '../html.js';

export function taskBadge(state: TaskState): SafeHtml {
  return html`<span class="badge s-${state}" data-state="${state}"
    >${state.replace('_', ' ')}</span
  >`;
}

export function runBadge(state: RunState, held = false): SafeHtml {
  return html`<span class="badge r-${state}" data-run-state="${state}"
    >${state.replace('_', ' ')}${held && state !== 'held' ? ' (held)' : ''}</span
  >`;
}

/** "$1.50 / $20.00" with a meter (a native <meter>: no inline styles under the CSP). */
export function spend(spent: number, budget: number | undefined): SafeHtml {
  if (budget === undefined) return html`<span class="spend">${formatUsd(spent)}</span>`;
  return html`<span class="spend">${formatUsd(spent)} / ${formatUsd(budget)}</span>
    <meter
      min="0"
      max="${budget}"
      low="${budget * 0.5}"
      high="${budget * 0.8}"
      optimum="0"
      value="${Math.min(spent, budget)}"
    ></meter>`;
}
