import type { AppServices } from './app-services.js';
import type { HandlerRegistry } from './repository-first.js';
import { postAnswer } from './post-answer.js';
import {
  commentFactsOf,
  commentIntent,
  describeParseError,
  NOT_ANSWERED,
  type Command,
  type ParsedCommand,
} from '../core/commands/index.js';
import { validateConfig } from '../config/load.js';
import { DEFAULT_CONFIG } from '../config/schema.js';
import { executeCommand, type CommandOutcome } from '../engine/commands.js';
import { loadRunScope } from '../engine/context.js';
import { acceptPlanComment } from '../engine/plan-comment.js';
import { linkPullRequest } from '../engine/track.js';
import { freshRoleOf } from '../engine/roles.js';
import { WRITE_ROLES, type RoleName } from '../core/roles.js';
import type { GitHubPort, RepoCoords } from '../github/port.js';
import { crashPoint } from '../crash-points.js';
import type { CommandRow } from '../store/commands.js';
import type { RunRow, TaskRow } from '../store/runs.js';

export function registerCommentHandlers(app: HandlerRegistry, services: AppServices): void {
  app.on('issue_comment.created', async (context) => {
    const { comment, issue, repository, sender } = context.payload;
    const { engine } = services;
    const port = services.port(context.octokit);
    const repo = context.repo();
    const log = context.log.child({
      repo: repository.full_name,
      issue: issue.number,
      comment: comment.id,
    });

    const intent = commentIntent(commentFactsOf(context.payload), services.appId);
    if (intent.kind === 'none') return;
    if (intent.kind === 'plan') {
      const run = await engine.store.runs.activeRun(repository.id, issue.number);
      if (!run || (run.state !== 'planning' && run.state !== 'plan_invalid')) return;
      const accepted = await acceptPlanComment(engine, {
        port,
        repo,
        repositoryId: repository.id,
        run,
        workflowRunId: intent.workflowRunId,
        body: comment.body,
      });
      if (!accepted)
        log.warn(
          { runId: intent.workflowRunId },
          'plan comment names a workflow run we did not dispatch; ignored',
        );
      return;
    }

    const onPullRequest = Boolean(issue.pull_request);
    const { parsed } = intent;
    const role = await freshRoleOf(engine, port, repo, sender.login);
    const allowed = WRITE_ROLES.has(role);
    // Someone without write access moves nothing, so their command costs the installation its one
    // permission read (docs/commands.md): the PR is not read from GitHub for it.
    const target: { run?: RunRow; task?: TaskRow } | undefined = onPullRequest
      ? await taskOfPullRequest(services, allowed ? port : null, repo, repository.id, issue.number)
      : {
          run:
            (await engine.store.runs.activeRun(repository.id, issue.number)) ??
            (await engine.store.runs.latestRun(repository.id, issue.number)),
        };
    if (allowed && !onPullRequest && !target?.run && parsed.some((p) => p.ok))
      await awaitLabelDelivery(port, repo, issue.number);
    const now = engine.now();
    const replies: string[] = [];
    let accepted = 0;
    let carriedOut = 0;
    // A command this delivery recorded done in an earlier handling: that handling may have posted
    // the reply before it was cut short, so the reply is looked for before it is posted.
    let handledBefore = false;
    const writtenAt = new Date(comment.created_at);

    for (const [ordinal, item] of parsed.entries()) {
      const name = item.ok ? item.command.name : item.error.name;
      // The command is claimed for this delivery before anything is done (docs/commands.md,
      // "Each comment once"): another delivery of the comment finds the claim and does nothing.
      const values = {
        repositoryId: repository.id,
        issueNumber: issue.number,
        runId: target?.run?.id ?? null,
        commentId: comment.id,
        ordinal,
        actorLogin: sender.login,
        permission: role,
        name,
        args: item.ok ? item.command : item.error,
        deliveryId: context.id,
        createdAt: now,
      };
      // Someone below write is refused whatever they asked: the refusal is recorded at once, with
      // whether the refusal budget answers it, decided with the installation's other refusals.
      const {
        row: claim,
        answered: answerRefusal,
        recordedBefore,
      } = allowed
        ? { row: await engine.store.commands.claim(values), answered: true, recordedBefore: false }
        : await engine.store.commands.recordRefusal(values, {
            reason: commandRefusalReason(role),
            answerable: true,
          });
      if (claim.deliveryId !== context.id) {
        if (!allowed) break;
        continue;
      }
      carriedOut++;
      if (recordedBefore || (allowed && claim.doneAt !== null)) handledBefore = true;
      let outcome: CommandOutcome;
      if (claim.doneAt !== null) {
        // This delivery carried it out before its handling was cut short: answered from the record.
        outcome = recordedOutcome(claim);
      } else {
        crashPoint('command.claimed');
        outcome = await decide(item, allowed, role, target, onPullRequest, (command) =>
          runCommand(
            services,
            port,
            target!.run!,
            target?.task,
            { actor: sender.login, writtenAt },
            command,
          ),
        );
        await engine.store.commands.finish(claim.id, {
          accepted: outcome.ok,
          outcome: outcome.ok ? 'ok' : `${outcome.reason}${answerRefusal ? '' : NOT_ANSWERED}`,
        });
      }
      if (claim.answeredAt !== null) {
        if (!allowed) break;
        continue;
      }
      if (outcome.ok) {
        accepted++;
        if (outcome.reply) replies.push(outcome.reply);
      } else if (allowed || (answerRefusal && replies.length === 0)) {
        replies.push(`\`/${name}\`: ${outcome.reason.replace(/\.$/, '')}.`);
      }
      if (!allowed) break; // one short reply, nothing changes
    }
    if (accepted > 0) await port.reactToComment(repo, comment.id, '+1');
    if (replies.length > 0)
      await postAnswer(port, repo, issue.number, {
        key: comment.id,
        text: `@${sender.login} ${replies.join('\n\n')}`,
        handledBefore,
      });
    if (carriedOut > 0) await engine.store.commands.answered(comment.id, context.id);
    log.info(
      { actor: sender.login, role, commands: parsed.length, carriedOut, accepted },
      carriedOut === 0
        ? 'commands already claimed by another delivery; nothing done'
        : 'commands handled',
    );
  });
}

/** What one parsed command comes to: refused for the commenter's role or its form, or carried out. */
function decide(
  item: ParsedCommand,
  allowed: boolean,
  role: RoleName,
  target: { run?: RunRow; task?: TaskRow } | undefined,
  onPullRequest: boolean,
  carryOut: (command: Command) => Promise<CommandOutcome>,
): Promise<CommandOutcome> | CommandOutcome {
  if (!allowed) return { ok: false, reason: commandRefusalReason(role) };
  if (!item.ok) return { ok: false, reason: describeParseError(item.error) };
  if (!target?.run)
    return {
      ok: false,
      reason: onPullRequest
        ? 'this pull request is not an agent task'
        : 'there is no agent-coordinator run on this issue',
    };
  return carryOut(item.command);
}

function commandRefusalReason(role: RoleName): string {
  return `only people with write access can use commands (your role: ${role})`;
}

/** The outcome a claimed command recorded when it was done. */
function recordedOutcome(row: CommandRow): CommandOutcome {
  if (row.accepted) return { ok: true };
  const reason = row.outcome ?? '';
  return {
    ok: false,
    reason: reason.endsWith(NOT_ANSWERED) ? reason.slice(0, -NOT_ANSWERED.length) : reason,
  };
}

async function runCommand(
  services: AppServices,
  port: GitHubPort,
  run: RunRow,
  task: TaskRow | undefined,
  author: { actor: string; writtenAt: Date },
  command: Command,
): Promise<CommandOutcome> {
  const { engine } = services;
  // Read again with its repository, in one statement: the command may have waited for the run.
  const fresh = await engine.store.runs.runWithRepository(run.id);
  const scope = await loadRunScope(engine, fresh?.run ?? run, port, fresh?.repository);
  return executeCommand(engine, { scope, task, ...author }, command);
}

/**
 * The task of an agent PR. A comment can be handled before the delivery that announced the PR
 * (GitHub delivers late and out of order): then the PR is read from GitHub, when a `port` is
 * given, and linked now.
 */
async function taskOfPullRequest(
  services: AppServices,
  port: GitHubPort | null,
  repo: RepoCoords,
  repositoryId: number,
  number: number,
) {
  const { engine } = services;
  const found = await engine.store.pulls.withTask(repositoryId, number);
  if (found) return { run: found.run, task: found.task };
  const pull = port && repo.owner && repo.repo ? await port.pull(repo, number) : null;
  if (!pull || pull.state !== 'open') return undefined;
  return (await linkPullRequest(engine, repositoryId, pull)) ?? undefined;
}

/**
 * GitHub delivers in no set order, so a command can come before the `issues.labeled` delivery
 * that starts the issue's run. When GitHub shows the trigger label on the open issue now, the
 * handling fails on purpose: the delivery is retried after a backoff, by when the label's
 * delivery has usually been handled. (A label from someone without write access never starts a
 * run; such a command stays unanswered once its retries are spent.)
 */
async function awaitLabelDelivery(
  port: GitHubPort,
  repo: RepoCoords,
  issueNumber: number,
): Promise<void> {
  if (!repo.owner || !repo.repo) return;
  const now = await port.issue(repo, issueNumber);
  if (!now || now.state !== 'open' || now.labels.length === 0) return;
  const file = await port.readConfigFile(repo);
  const checked = file.ok ? validateConfig(file.raw) : undefined;
  const trigger = checked?.ok ? checked.config.label : DEFAULT_CONFIG.label;
  if (now.labels.includes(trigger))
    throw new Error(
      `issue #${issueNumber} carries the label ${trigger} but has no run yet: waiting for the label's delivery`,
    );
}
