import { validateConfig } from '../config/load.js';
import { labelFactsOf, labelStartsNothing } from '../config/trigger-labels.js';
import { codeSpan } from '../core/commands/index.js';
import { DEFAULT_CONFIG } from '../config/schema.js';
import { loadRunScope } from '../engine/context.js';
import { cancelRun } from '../engine/cancel.js';
import { decideIssueStop, decideLabelStart } from '../core/lifecycle/index.js';
import { WRITE_ROLES } from '../core/roles.js';
import { freshRoleOf } from '../engine/roles.js';
import type { AppServices } from './app-services.js';
import type { HandlerRegistry } from './repository-first.js';
import { refuse } from './refuse.js';
import { labelEventKey } from './refusal-budget.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import type { RoleName } from '../core/roles.js';

/** Labelling an issue starts a run; only write+ users may, and a bad config stops it with a reason. */
export function registerIssueHandlers(app: HandlerRegistry, services: AppServices): void {
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

    const role = await freshRoleOf(services.engine, port, repo, sender.login);
    if (!WRITE_ROLES.has(role)) {
      log.info({ sender: sender.login, role }, 'label from a user without write access ignored');
      const reason = `only people with write access can start agent-coordinator (your role: ${role})`;
      await refuse(services, port, repo, {
        repositoryId: repository.id,
        issueNumber: issue.number,
        actor: sender.login,
        role,
        deliveryId: context.id,
        name: 'label',
        args: { label: label.name },
        reason,
        reply: `${reason}. Nothing was started.`,
        runId: null,
      });
      return;
    }
    if (!checked.ok) {
      log.warn({ errors: checked.errors }, 'invalid repository config; nothing started');
      await answerConfigError(services, port, repo, {
        repositoryId: repository.id,
        issueNumber: issue.number,
        label: label.name,
        updatedAt: issue.updated_at,
        actor: sender.login,
        role,
        deliveryId: context.id,
        errors: checked.errors,
      });
      return;
    }
    // The payload is a trigger, not the truth (it may be a replay under a new delivery id): core
    // decides on the issue as GitHub shows it now and on the issue's last run. A read GitHub
    // fails throws: nothing starts, and the delivery is retried.
    const latest = await services.store.runs.latestRun(repository.id, issue.number);
    const delivery = latest?.finishedAt
      ? await services.store.deliveries.get(context.id)
      : undefined;
    const verdict = decideLabelStart({
      triggerLabel,
      updatedAt: issue.updated_at,
      now: await port.issue(repo, issue.number),
      latest: latest
        ? {
            finished: latest.finishedAt !== null,
            createdAt: latest.createdAt,
            triggerUpdatedAt: latest.triggerUpdatedAt,
          }
        : null,
      deliveryReceivedAt: delivery?.receivedAt ?? null,
    });
    if (verdict.kind === 'ignore') {
      log.info({ run: latest?.id, why: verdict.why }, 'label event starts nothing');
      return;
    }
    await services.onRunRequested({ context, config: checked.config, port });
  });

  // Removing the label or closing the issue cancels the run, when someone who may `/cancel` does
  // it (core's decideIssueStop). The coordinator's own close (run done) finds no active run, so
  // its own event changes nothing.
  app.on(['issues.unlabeled', 'issues.closed'], async (context) => {
    const { issue, repository, sender } = context.payload;
    const label = 'label' in context.payload ? context.payload.label : undefined;
    const run = await services.store.runs.activeRun(repository.id, issue.number);
    if (!run) return;
    const config = run.config as { label: string };
    const action = context.payload.action;
    if (action === 'unlabeled' && label?.name !== config.label) return;
    const port = services.port(context.octokit);
    const repo = context.repo();
    const known = Boolean(repo.owner && repo.repo);
    const now = known ? await port.issue(repo, issue.number) : null;
    // Asked of GitHub, not the minute's cache, as for `/cancel`: the cancel is what write grants.
    const senderRole = known
      ? await freshRoleOf(services.engine, port, repo, sender.login)
      : 'none';
    const verdict = decideIssueStop({ action, senderRole }, now, config.label);
    if (verdict.kind === 'undone') return;
    if (verdict.kind === 'cancel') {
      await cancelRun(services.engine, await loadRunScope(services.engine, run, port), verdict.why);
      return;
    }
    context.log.info(
      { repo: repository.full_name, issue: issue.number, sender: sender.login, senderRole },
      `${action} by a user without write access; the run goes on`,
    );
    await refuse(services, port, repo, {
      repositoryId: repository.id,
      issueNumber: issue.number,
      actor: sender.login,
      role: senderRole,
      deliveryId: context.id,
      name: action === 'closed' ? 'close' : 'unlabel',
      args: action === 'closed' ? {} : { label: config.label },
      reason: verdict.reason,
      // A bot's close (a workflow's stale-issue sweep, the coordinator's own) is recorded only.
      reply: sender.type === 'Bot' ? null : `${verdict.reason}.`,
      runId: run.id,
    });
  });
}

/**
 * The config's errors, answered once per label event: its delivery id is not signed, so a captured
 * delivery sent again under new ids would otherwise have the App write the answer each time. The
 * event is claimed in the command log, as a comment's commands are (docs/commands.md, "Each
 * comment once"); a retry of the delivery that claimed it answers what is not answered yet.
 */
async function answerConfigError(
  services: AppServices,
  port: GitHubPort,
  repo: RepoCoords,
  event: {
    repositoryId: number;
    issueNumber: number;
    label: string;
    updatedAt: string;
    actor: string;
    role: RoleName;
    deliveryId: string;
    errors: string[];
  },
): Promise<void> {
  const { store } = services;
  const commentId = labelEventKey(event);
  const claim = await store.commands.claim({
    repositoryId: event.repositoryId,
    issueNumber: event.issueNumber,
    runId: null,
    commentId,
    ordinal: 0,
    actorLogin: event.actor,
    permission: event.role,
    name: 'label',
    args: { label: event.label },
    deliveryId: event.deliveryId,
    createdAt: services.engine.now(),
  });
  if (claim.deliveryId !== event.deliveryId || claim.answeredAt !== null) return;
  await store.commands.finish(claim.id, { accepted: false, outcome: CONFIG_INVALID });
  await port.createIssueComment(repo, event.issueNumber, configErrorComment(event.errors));
  await store.commands.answered(commentId, event.deliveryId);
}

const CONFIG_INVALID = 'the repository config is invalid; nothing started';

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
