import { attemptRecord } from './attempt-record.js';
import { fail, type WorkerOutcome } from './outcome.js';
import { openOrUpdatePull } from './pull-request.js';
import { workPrompt } from './prompts.js';
import {
  commit,
  commitSubject,
  ensureOnTaskBranch,
  failStoppedEmpty,
  invokeAgent,
  log,
  push,
  pushedOutcome,
  resolveBase,
  type ModeContext,
} from './steps.js';

/**
 * `work`: do the task on its branch and open (or update) its PR. A retry starts again from
 * the base and rewrites the branch, so the PR shows only the new attempt.
 */
export async function runWorkMode(ctx: ModeContext): Promise<WorkerOutcome> {
  const { env, git } = ctx;
  await ensureOnTaskBranch(ctx);
  const base = await resolveBase(ctx);

  let lease: string | undefined;
  if (env.attempt > 1) {
    await git.fetchBranches([base, env.branch]);
    // What we expect to overwrite: if someone pushed meanwhile, the push refuses.
    lease = (await git.resolve(`refs/remotes/origin/${env.branch}`)) ?? '';
    log(ctx, `attempt ${env.attempt}: starting again from origin/${base}`);
    await git.run(['reset', '--hard', '--quiet', `refs/remotes/origin/${base}`]);
    await git.run(['clean', '-ffdq']);
  }
  const start = await git.head();

  const { report, stopped } = await invokeAgent(ctx, workPrompt({ ...env, base }));

  if (await git.stageAll()) await commit(ctx, commitSubject(env, stopped));
  const head = await git.head();
  if (head === start) {
    if (stopped) failStoppedEmpty(ctx, 'left no changes to keep');
    fail('no_changes', 'the agent left no changes to commit');
  }

  await push(ctx, { since: start, lease });
  const pr = await openOrUpdatePull(ctx.github, env, {
    base,
    summary: report.structured ? report.result : '',
    usage: report.usage,
    partial: stopped,
    record: attemptRecord(env, { stopped, usage: report.usage }),
  });
  return pushedOutcome(ctx, head, pr, stopped);
}
