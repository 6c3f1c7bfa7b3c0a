import { TASK_STATES } from '../../core/states.js';
import { clip, formatDuration, formatTime } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { Links } from '../links.js';
import type { RunSummary } from '../queries.js';
import { runBadge, spend, taskBadge } from './badges.js';

export function renderRunsList(runs: readonly RunSummary[], links: Links, now: Date): SafeHtml {
  if (runs.length === 0) {
    return html`<h1>Runs</h1>
      <p class="muted">No runs yet. Label an issue to start one.</p>`;
  }
  const active = runs.filter((r) => r.finishedAt === null).length;
  const rows = runs.map((run) => {
    const counts = TASK_STATES.filter((s) => run.taskCounts[s]).map(
      (s) => html`${taskBadge(s)}<span class="muted">${run.taskCounts[s] ?? 0}</span> `,
    );
    const age = formatDuration((run.finishedAt ?? now).getTime() - run.createdAt.getTime());
    return html`<tr data-run="${run.id}">
      <td><a href="${links.repo(run.owner, run.repo)}">${run.owner}/${run.repo}</a></td>
      <td class="wrap">
        <a class="run-link" href="${Links.runPage(run.id)}"
          >#${run.issueNumber} ${clip(run.issueTitle, 80)}</a
        >${run.generation > 1 ? html` <span class="muted">(run ${run.generation})</span>` : ''}
      </td>
      <td>${runBadge(run.state, run.held)}</td>
      <td class="counts">
        ${run.taskTotal === 0 ? html`<span class="muted">–</span>` : counts}${
          run.readyCount > 0
            ? html`<span class="muted" title="ready to dispatch, waiting for a worker slot"
                >(${run.readyCount} ready)</span
              >`
            : ''
        }
      </td>
      <td class="num">${spend(run.spendUsd, run.budgetUsd)}</td>
      <td class="num" title="started ${formatTime(run.createdAt)}">
        ${age}${run.finishedAt ? '' : ' so far'}
      </td>
      <td class="num" title="${formatTime(run.updatedAt)}">
        ${formatDuration(now.getTime() - run.updatedAt.getTime())} ago
      </td>
    </tr>`;
  });
  return html`<h1>Runs</h1>
    <p class="muted">
      ${active} active, ${runs.length - active}
      finished${runs.length >= 200 ? ' (latest 200)' : ''}.
    </p>
    <table id="runs">
      <thead>
        <tr>
          <th>Repository</th>
          <th>Issue</th>
          <th>State</th>
          <th>Tasks</th>
          <th class="num">Spend</th>
          <th class="num">Age</th>
          <th class="num">Changed</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>`;
}
