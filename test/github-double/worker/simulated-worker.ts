import type { Core } from '../core.js';
import { branchSha } from '../git.js';
import type { Run } from '../model.js';
import { annotateJob, completeRun, findRun, logJobStep, startRun } from '../ops/actions.js';
import { createComment, editIssue } from '../ops/issues.js';
import { openPullsWithHead, type Sent } from '../ops/pull-events.js';
import { openPull } from '../ops/pulls.js';
import { pushCommit } from '../ops/refs.js';
import { WORKER_WORKFLOW } from '../ops/repos.js';
import {
  agentConfigMarker,
  planMarker,
  taskMarker,
  usageMarker,
} from '../../../src/protocol/markers.js';
import { agentConfigContent, renderSection } from '../../../src/protocol/pull-sections.js';
import { usageAnnotation } from '../../../src/protocol/usage-annotation.js';
import { autoWorker, type WorkerOutcome, type WorkerPolicy, type WorkerRun } from './outcomes.js';

// Plays the worker workflow: reacts to each dispatch of the worker workflow with the steps a
// real run would take, each step's webhooks delivered before the next step starts.
export class SimulatedWorker {
  policy: WorkerPolicy | null = autoWorker;
  workflow = WORKER_WORKFLOW;
  private readonly active = new Set<Promise<void>>();
  private readonly perBranch = new Map<string, number>();
  /** Deliveries of steps that did not wait for them: a job counts as done once they are answered. */
  private readonly unanswered: Promise<unknown>[] = [];

  constructor(
    private readonly core: Core,
    private readonly options: { awaitDeliveries: boolean } = { awaitDeliveries: true },
  ) {}

  onDispatch(runId: number): void {
    const run = findRun(this.core, runId);
    if (!run || run.workflow.file !== this.workflow || !this.policy) return;
    const key = `${run.repo.fullName}#${run.headBranch}`;
    const count = (this.perBranch.get(key) ?? 0) + 1;
    this.perBranch.set(key, count);
    const policy = this.policy;
    const job = (async () => {
      const outcome = await policy(view(run), { dispatchesOnBranch: count });
      await this.play(run, outcome);
      await Promise.all(this.unanswered.splice(0));
    })()
      .catch((error: unknown) => this.core.workerError(error))
      .finally(() => {
        this.active.delete(job);
        this.core.changed('worker-idle', { runId });
      });
    this.active.add(job);
  }

  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.all([...this.active]);
  }

  private async step(sent: Sent): Promise<void> {
    if (this.options.awaitDeliveries) await Promise.all(sent);
    else this.unanswered.push(...sent);
    if (this.core.closed) throw new WorkerStopped();
  }

  async play(run: Run, outcome: WorkerOutcome): Promise<void> {
    const { core } = this;
    try {
      switch (outcome.kind) {
        case 'manual':
          return;
        case 'hang':
          await this.step(startRun(core, run));
          if (outcome.usage)
            annotateJob(run, [
              { message: usageAnnotation(outcome.usage), annotation_level: 'notice' },
            ]);
          return;
        case 'fail':
          if (outcome.conclusion !== 'startup_failure') await this.step(startRun(core, run));
          if (outcome.usage)
            annotateJob(run, [
              { message: usageAnnotation(outcome.usage), annotation_level: 'notice' },
            ]);
          if (outcome.reason !== undefined) {
            annotateJob(run, [
              { message: workerErrorMessage(outcome), annotation_level: 'failure' },
            ]);
            // The worker's last line, as the runner shows a `::error::` command in the log.
            logJobStep(run, {
              name: 'Run the worker',
              lines: [`##[error]${workerErrorMessage(outcome)}`],
            });
          }
          await this.step(completeRun(core, run, outcome.conclusion ?? 'failure'));
          return;
        case 'no_changes':
          await this.step(startRun(core, run));
          await this.step(completeRun(core, run, 'success'));
          return;
        case 'plan':
          await this.step(startRun(core, run));
          await this.postPlan(run, outcome.tasksBlock);
          await this.step(completeRun(core, run, 'success'));
          return;
        case 'job':
          await this.step(startRun(core, run));
          await this.step(completeRun(core, run, await outcome.run()));
          return;
        case 'pr':
          await this.step(startRun(core, run));
          await this.openOrUpdatePr(run, outcome);
          if (outcome.stoppedAtDeadline) {
            const stopped = {
              reason: 'timed_out',
              detail: 'the agent was stopped at its deadline',
            };
            annotateJob(run, [
              { message: workerErrorMessage(stopped), annotation_level: 'failure' },
            ]);
            await this.step(completeRun(core, run, 'failure'));
            return;
          }
          await this.step(completeRun(core, run, 'success'));
          return;
      }
    } catch (error) {
      if (!(error instanceof WorkerStopped)) throw error;
    }
  }

  private async postPlan(run: Run, tasksBlock: string): Promise<void> {
    const issue = run.repo.issues.get(Number(run.inputs['issue']));
    if (!issue)
      throw new Error(
        `simulated worker: run ${run.id} names issue ${run.inputs['issue']}, which does not exist`,
      );
    const block = /^\s*```tasks/.test(tasksBlock)
      ? tasksBlock
      : `\`\`\`tasks\n${tasksBlock.trimEnd()}\n\`\`\``;
    const body = `Proposed plan:\n\n${block}\n\n${planMarker(run.id)}`;
    // As the worker template does: with the App's token, so the App is the author.
    const { sent } = createComment(
      this.core,
      run.repo,
      issue,
      body,
      this.core.app.bot,
      this.core.app,
    );
    await this.step(sent);
  }

  private async openOrUpdatePr(
    run: Run,
    outcome: Extract<WorkerOutcome, { kind: 'pr' }>,
  ): Promise<void> {
    const { core } = this;
    const repo = run.repo;
    const inputs = run.inputs;
    const task = inputs['task_id'] ?? run.headBranch.split('/').pop() ?? 'task';
    const issue = inputs['issue'] ?? '0';
    const attempt = inputs['attempt'] ?? '1';
    const base = outcome.base ?? (inputs['base'] || stackedOn(repo, run) || repo.defaultBranch);
    const bot = core.app.bot;
    // The markers the real worker writes (docs/worker.md), from the same module.
    const markers = [taskMarker(Number(issue), task, Number(attempt))];
    if (
      outcome.costUsd !== undefined ||
      outcome.inputTokens !== undefined ||
      outcome.outputTokens !== undefined
    ) {
      markers.push(
        usageMarker({
          costUsd: outcome.costUsd ?? 0,
          inputTokens: outcome.inputTokens ?? 0,
          outputTokens: outcome.outputTokens ?? 0,
        }),
      );
    }
    const config = agentConfigMarker(outcome.agentConfigChanged ?? []);
    if (config) markers.push(config);
    const title = outcome.title ?? (inputs['title'] || `${task}`);
    const changed = outcome.agentConfigChanged ?? [];
    const warning =
      changed.length > 0 ? `${renderSection('agent-config', agentConfigContent(changed))}\n\n` : '';
    const body = `${title}\n\n${warning}Closes part of #${issue}.\n\n${markers.join('\n')}`;
    // A work attempt restarts from the base (force push); a fix builds on the PR's commits.
    const parent =
      inputs['mode'] === 'fix' ? branchSha(repo, run.headBranch) : branchSha(repo, base);
    const files = outcome.files ?? {
      [`agent/${issue}/${task}.md`]: `${title}\nattempt ${attempt} (run ${run.id})\n`,
    };
    // As the worker's findOpenPull: only a PR a bot opened from the branch (the App's own).
    const existing = openPullsWithHead(core, repo, run.headBranch).find(
      (o) => o.repo === repo && o.pull.issue.user.type === 'Bot',
    )?.pull;
    const pushInput = {
      message: `${task}: ${title} (attempt ${attempt})`,
      files,
      by: bot,
      ...(parent ? { parent } : {}),
    };
    if (existing) {
      await this.step(editIssue(core, repo, existing.issue, { body }, bot));
      await this.step(pushCommit(core, repo, run.headBranch, pushInput).sent);
      return;
    }
    await this.step(pushCommit(core, repo, run.headBranch, pushInput).sent);
    const { sent } = openPull(core, repo, {
      headRepo: repo,
      headRef: run.headBranch,
      baseRef: base,
      title,
      body,
      by: bot,
    });
    await this.step(sent);
  }
}

class WorkerStopped extends Error {}

/**
 * Where a first attempt's branch was created from another open PR's head (`dispatch.stack`),
 * that PR's branch: what the assignment's `base` says then, for a policy that does not ask the
 * coordinator (`outcome.base`).
 */
function stackedOn(repo: Run['repo'], run: Run): string | undefined {
  if (run.inputs['attempt'] !== '1') return undefined;
  for (const pull of repo.pulls.values())
    if (
      pull.issue.state === 'open' &&
      pull.headRepo === repo &&
      pull.headRef !== run.headBranch &&
      pull.headSha === run.headSha
    )
      return pull.headRef;
  return undefined;
}

function view(run: Run): WorkerRun {
  return {
    id: run.id,
    repo: run.repo.fullName,
    workflow: run.workflow.file,
    branch: run.headBranch,
    headSha: run.headSha,
    inputs: { ...run.inputs },
    displayTitle: run.displayTitle,
  };
}

function workerErrorMessage(outcome: { reason?: string; detail?: string }): string {
  const detail = outcome.detail?.trim();
  return `agent-coordinator: ${outcome.reason}${detail ? ` (${detail})` : ''}`;
}
