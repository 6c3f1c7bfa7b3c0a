import type { Probot } from 'probot';
import { validateConfig } from '../config/load.js';
import { labelFactsOf, labelStartsNothing } from '../config/trigger-labels.js';
import { codeSpan, NOT_ANSWERED } from '../core/commands/index.js';
import { DEFAULT_CONFIG } from '../config/schema.js';
import { loadRunScope } from '../engine/context.js';
import { cancelRun } from '../engine/finish.js';
import { WRITE_ROLES } from '../core/roles.js';
import type { AppServices } from './app-services.js';
import { labelRefusalKey, mayAnswerRefusal } from './refusal-budget.js';

/** Labelling an issue starts a run; only write+ users may, and a bad config stops it with a reason. */
export function registerIssueHandlers(app: Probot, services: AppServices): void {
  app.on('issues.labeled', async (context) => {
    const { issue, label, sender, repository } = context.payload;
    const facts = labelFactsOf(context.payload as unknown as Record<string, unknown>);
    if (!label || labelStartsNothing(facts, services.triggerLabels)) return;
    const repo = context.repo();
    const port = services.port(context.octokit);
    const log = context.log.child({ repo: repository.full_name, issue: issue.number });
    const file = await port.readConfigFile(repo);
    const checked = file.ok
      ? validateConfig(file.raw)
      : { ok: false as const, errors: [file.error] };
    const triggerLabel = checked.ok
      ? checked.config.label
      : (rawLabel(file) ?? DEFAULT_CONFIG.label);
    services.triggerLabels.remember(repository.id, triggerLabel);
    if (label.name !== triggerLabel) return;

    const role = await port.roleOf(repo, sender.login);
    if (!WRITE_ROLES.has(role)) {
      log.info({ sender: sender.login, role }, 'label from a user without write access ignored');
      // The same reply budget as refused commands: one per person and issue an hour.
      const now = services.engine.now();
      const refusal = {
        repositoryId: repository.id,
        issueNumber: issue.number,
        actor: sender.login,
        commentId: labelRefusalKey(context.id),
      };
      const answer = await mayAnswerRefusal(services.store, refusal, now);
      const reason = `only people with write access can start agent-coordinator (your role: ${role})`;
      await services.store.commands.record({
        repositoryId: refusal.repositoryId,
        issueNumber: refusal.issueNumber,
        commentId: refusal.commentId,
        runId: null,
        ordinal: 0,
        actorLogin: sender.login,
        permission: role,
        name: 'label',
        args: { label: label.name },
        accepted: false,
        outcome: `${reason}${answer ? '' : NOT_ANSWERED}`,
        createdAt: now,
      });
      if (answer)
        await port.createIssueComment(
          repo,
          issue.number,
          `@${sender.login} ${reason}. Nothing was started.`,
        );
      return;
    }
    if (!checked.ok) {
      log.warn({ errors: checked.errors }, 'invalid repository config; nothing started');
      await port.createIssueComment(repo, issue.number, configErrorComment(checked.errors));
      return;
    }
    // A label event as old as the issue's last, finished run (handled again after a crash, or
    // redelivered) was that run's trigger: it never starts another one.
    const latest = await services.store.runs.latestRun(repository.id, issue.number);
    const delivery = latest?.finishedAt
      ? await services.store.deliveries.get(context.id)
      : undefined;
    if (latest && delivery && latest.createdAt >= delivery.receivedAt) {
      log.info({ run: latest.id }, 'label event older than the finished run it started; ignored');
      return;
    }
    await services.onRunRequested({ context, config: checked.config, port });
  });

  // Removing the label or closing the issue cancels the run. The coordinator's own close (run
  // done) finds no active run, so its own event changes nothing.
  app.on(['issues.unlabeled', 'issues.closed'], async (context) => {
    const { issue, repository } = context.payload;
    const label = 'label' in context.payload ? context.payload.label : undefined;
    const run = await services.store.runs.activeRun(repository.id, issue.number);
    if (!run) return;
    const config = run.config as { label: string };
    if (context.payload.action === 'unlabeled' && label?.name !== config.label) return;
    const port = services.port(context.octokit);
    // GitHub does not deliver in order: the label taken off and put back, or the issue closed and
    // reopened, can arrive the other way round. The issue as GitHub shows it now decides.
    const repo = context.repo();
    const now = repo.owner && repo.repo ? await port.issue(repo, issue.number) : null;
    if (now && context.payload.action === 'unlabeled' && now.labels.includes(config.label)) return;
    if (now && context.payload.action === 'closed' && now.state !== 'closed') return;
    const why = context.payload.action === 'closed' ? 'issue closed' : 'label removed';
    await cancelRun(services.engine, await loadRunScope(services.engine, run, port), why);
  });
}

function rawLabel(file: { ok: boolean; raw?: unknown }): string | undefined {
  const raw = file.ok ? file.raw : undefined;
  if (raw && typeof raw === 'object' && 'label' in raw && typeof raw.label === 'string')
    return raw.label;
  return undefined;
}

export function configErrorComment(errors: string[]): string {
  // Each error is quoted as code: it may repeat a key or value from the file as written.
  const lines = errors.map((e) => `- ${codeSpan(e, 300)}`);
  return [
    '**agent-coordinator** cannot start: `.github/agent-coordinator.yml` is invalid.',
    '',
    ...lines,
    '',
    'Fix the file on the default branch, then remove and add the label again.',
  ].join('\n');
}
