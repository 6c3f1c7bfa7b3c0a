import { TASK_STATES } from '../../core/states.js';
import { clip, formatDuration, formatTime, formatUsd } from '../format.js';
import { renderGraphSvg } from '../graph-svg.js';
import { html, safeUrl, type SafeHtml } from '../html.js';
import type { Links } from '../links.js';
import type { AttemptView, CommandView, RunDetail } from '../queries.js';
import { runBadge, spend, taskBadge } from './badges.js';

export function renderRunDetail(detail: RunDetail, links: Links, now: Date): SafeHtml {
  const { run } = detail;
  const pull = (n: number) => links.pull(run.owner, run.repo, n);
  const age = formatDuration((run.finishedAt ?? now).getTime() - run.createdAt.getTime());
  const present = new Set(detail.tasks.map((t) => t.state));
  const legend = TASK_STATES.filter((s) => present.has(s)).map((s) => taskBadge(s));
  return html`<p><a href="/dashboard">← all runs</a></p>
    <h1>
      <a href="${links.repo(run.owner, run.repo)}">${run.owner}/${run.repo}</a>
      <a href="${links.issue(run.owner, run.repo, run.issueNumber)}">#${run.issueNumber}</a>
      <span class="issue-title">${run.issueTitle}</span>
    </h1>
    <div class="facts">
      <span>state ${runBadge(run.state, run.held)}</span>
      <span>spend <b>${spend(run.spendUsd, run.budgetUsd)}</b></span>
      <span>age <b title="started ${formatTime(run.createdAt)}">${age}</b></span>
      <span>started by <a href="${links.user(run.startedBy)}">${run.startedBy}</a></span>
      ${run.planSource ? html`<span>plan from <b>${run.planSource}</b></span>` : ''}
      ${run.baseBranch ? html`<span>base <code>${run.baseBranch}</code></span>` : ''}
      ${run.generation > 1 ? html`<span>run <b>${run.generation}</b> of this issue</span>` : ''}
      ${run.finishedAt ? html`<span>finished <b>${formatTime(run.finishedAt)}</b></span>` : ''}
    </div>
    ${run.holdReason ? html`<p>Held: ${run.holdReason}</p>` : ''}
    ${
      run.planError
        ? html`<h2>Plan error</h2>
            <div class="error">${run.planError}</div>`
        : ''
    }
    <h2>Task graph</h2>
    <div class="legend">${legend}</div>
    <div class="graph-wrap">${renderGraphSvg(detail.tasks, { pull })}</div>
    <h2>Tasks</h2>
    ${tasksTable(detail, pull)}
    <h2>Attempts</h2>
    ${attemptsTable(detail.attempts)}
    <h2>Commands</h2>
    ${commandsTable(detail.commands, links, run)}`;
}

function tasksTable(detail: RunDetail, pull: (n: number) => string): SafeHtml {
  if (detail.tasks.length === 0) return html`<p class="muted">No tasks yet.</p>`;
  const rows = detail.tasks.map((t) => {
    const run = safeUrl(t.lastRunUrl);
    return html`<tr data-task="${t.key}">
      <td><code>${t.key}</code></td>
      <td class="wrap">
        ${t.title}${t.vetoReason ? html`<br /><span class="muted">vetoed: ${t.vetoReason}</span>` : ''}
      </td>
      <td>
        ${t.deps.length ? t.deps.map((d, i) => html`${i ? ', ' : ''}<code>${d}</code>`) : html`<span class="muted">–</span>`}
      </td>
      <td>${taskBadge(t.state)}${t.held ? ' held' : ''}</td>
      <td class="num">${t.priority}</td>
      <td class="num">${t.attemptCount}</td>
      <td>
        ${t.prNumber === null ? html`<span class="muted">–</span>` : html`<a class="pr-link" href="${pull(t.prNumber)}">#${t.prNumber}</a>`}
      </td>
      <td>
        ${run ? html`<a class="run-link" href="${run}">latest run</a>` : html`<span class="muted">–</span>`}
      </td>
      <td class="num">${formatUsd(t.costUsd)}</td>
    </tr>`;
  });
  return html`<table id="tasks">
    <thead>
      <tr>
        <th>Task</th>
        <th>Title</th>
        <th>Deps</th>
        <th>State</th>
        <th class="num">Priority</th>
        <th class="num">Attempts</th>
        <th>PR</th>
        <th>Run</th>
        <th class="num">Cost</th>
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

function attemptsTable(attempts: readonly AttemptView[]): SafeHtml {
  if (attempts.length === 0) return html`<p class="muted">No attempts yet.</p>`;
  const rows = attempts.map((a) => {
    const run = safeUrl(a.workflowRunUrl);
    const end = a.completedAt;
    const from = a.startedAt ?? a.dispatchedAt;
    const took = from && end ? formatDuration(end.getTime() - from.getTime()) : '';
    const tokens =
      a.inputTokens !== null || a.outputTokens !== null
        ? `${a.inputTokens ?? 0} in / ${a.outputTokens ?? 0} out`
        : '';
    return html`<tr data-task="${a.taskKey}" data-attempt="${a.attempt}">
      <td><code>${a.taskKey}</code></td>
      <td class="num">${a.attempt}</td>
      <td>${a.mode}</td>
      <td>${a.phase}</td>
      <td>
        ${a.conclusion ?? html`<span class="muted">–</span>`}${a.failureReason ? html`<br /><span class="muted">${a.failureReason}</span>` : ''}
      </td>
      <td>${formatTime(a.dispatchedAt ?? a.intentAt)}</td>
      <td class="num">${took}</td>
      <td class="num">${a.costUsd === null ? '' : formatUsd(a.costUsd)}</td>
      <td class="num">${tokens}</td>
      <td>
        ${run ? html`<a class="run-link" href="${run}">workflow run</a>` : html`<span class="muted">–</span>`}
      </td>
    </tr>`;
  });
  return html`<table id="attempts">
    <thead>
      <tr>
        <th>Task</th>
        <th class="num">#</th>
        <th>Mode</th>
        <th>Phase</th>
        <th>Conclusion</th>
        <th>Dispatched</th>
        <th class="num">Took</th>
        <th class="num">Cost</th>
        <th class="num">Tokens</th>
        <th>Run</th>
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

/** The command as typed, near enough: `/veto task_002 too risky`. */
function commandText(c: CommandView): string {
  const args = (c.args ?? {}) as Record<string, unknown>;
  const text = (key: string) => (typeof args[key] === 'string' ? (args[key] as string) : '');
  if (typeof args['kind'] === 'string') return [`/${c.name}`, text('text')].join(' ').trim();
  if (c.name === 'plan') return '/plan + tasks block';
  return [`/${c.name}`, text('taskId'), text('reason'), text('feedback')].filter(Boolean).join(' ');
}

function commandsTable(
  commands: readonly CommandView[],
  links: Links,
  run: RunDetail['run'],
): SafeHtml {
  if (commands.length === 0) return html`<p class="muted">No commands yet.</p>`;
  const rows = commands.map(
    (c) =>
      html`<tr data-command="${c.name}" data-accepted="${String(c.accepted)}">
        <td>${formatTime(c.createdAt)}</td>
        <td>
          <a href="${links.user(c.actorLogin)}">${c.actorLogin}</a
          >${c.permission ? html` <span class="muted">(${c.permission})</span>` : ''}
        </td>
        <td><a href="${links.issue(run.owner, run.repo, c.issueNumber)}">#${c.issueNumber}</a></td>
        <td class="wrap"><code>${clip(commandText(c), 200)}</code></td>
        <td>
          ${c.accepted ? html`<span class="yes">accepted</span>` : html`<span class="no">refused</span>`}
        </td>
        <td class="wrap">${c.outcome ?? ''}</td>
      </tr>`,
  );
  return html`<table id="commands">
    <thead>
      <tr>
        <th>When</th>
        <th>Who</th>
        <th>Where</th>
        <th>Command</th>
        <th>Accepted</th>
        <th>Outcome</th>
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}
