import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { attemptRecord } from './attempt-record.js';
import { fail, type WorkerOutcome } from './outcome.js';
import { openOrUpdatePull } from './pull-request.js';
import { fixPrompt } from './prompts.js';
import { answerThreads } from './review-replies.js';
import {
  commit,
  commitSubject,
  ensureOnTaskBranch,
  failStoppedEmpty,
  invokeAgent,
  log,
  PARTIAL_PREFIX,
  push,
  pushedOutcome,
  resolveBase,
  taskTrailer,
  type AgentRun,
  type ModeContext,
} from './steps.js';

const CONFLICT_MARKER = /^(<{7}|>{7})(\s|$)/m;

/**
 * `fix`: build on the PR's commits (never rewrite them: reviewers have seen them). Merge
 * the base in, let the agent resolve conflicts and address feedback, push without force,
 * then answer each review thread it was given.
 */
export async function runFixMode(ctx: ModeContext): Promise<WorkerOutcome> {
  const { env, git } = ctx;
  await ensureOnTaskBranch(ctx);
  const base = await resolveBase(ctx);
  await git.fetchBranches([base]);
  const start = await git.head();
  // The branch ends with a stopped attempt's work: this one finishes it.
  const continuing = (await git.out(['log', '-1', '--format=%s', start])).startsWith(
    PARTIAL_PREFIX,
  );

  const subject = `Merge ${base} into ${env.branch}`;
  const merge = await git.run(
    ['merge', '--no-edit', '-m', subject, '-m', taskTrailer(env), `refs/remotes/origin/${base}`],
    { allowFail: true },
  );
  const conflicts = merge.code === 0 ? [] : await git.unmergedFiles();
  if (merge.code !== 0 && conflicts.length === 0) {
    fail(
      'git_failed',
      `git merge origin/${base} failed: ${merge.stderr.trim() || merge.stdout.trim()}`,
    );
  }
  if (conflicts.length > 0) log(ctx, `merging ${base} conflicts in: ${conflicts.join(', ')}`);

  let run: AgentRun | undefined;
  let touched = new Set<string>();
  const needsAgent =
    continuing ||
    conflicts.length > 0 ||
    env.feedback.trim() !== '' ||
    env.review !== undefined ||
    env.checks.length > 0;
  // A clean merge with nothing to address needs no agent (and costs nothing).
  if (needsAgent) {
    const before = await git.head();
    run = await invokeAgent(ctx, fixPrompt({ ...env, base, conflicts, continuing }));
    // Read before staging: what the agent itself changed, not what the merge brought in.
    touched = new Set(await git.touchedSince(before));
  }
  const stopped = run?.stopped ?? false;

  if (conflicts.length > 0) {
    if (!(await git.resolve('MERGE_HEAD'))) {
      if (stopped) failStoppedEmpty(ctx, 'the merge it was resolving is gone');
      fail('agent_failed', 'the agent abandoned the merge');
    }
    await git.stageAll();
    const unresolved = await stillConflicted(ctx.cwd, conflicts);
    if (unresolved.length > 0) {
      // A merge commit with conflict markers is no work to build on.
      if (stopped)
        failStoppedEmpty(
          ctx,
          `left conflict markers in ${unresolved.join(', ')}, so nothing is kept`,
        );
      fail('agent_failed', `conflict markers left in: ${unresolved.join(', ')}`);
    }
    // Our own message: git's default would put its "# Conflicts:" notes after the trailer.
    await git.run([
      'commit',
      '--no-verify',
      '--quiet',
      '-m',
      stopped ? `${PARTIAL_PREFIX}${subject}` : subject,
      '-m',
      `Conflicts resolved by the agent: ${conflicts.join(', ')}`,
      '-m',
      taskTrailer(env),
    ]);
  } else if (await git.stageAll()) {
    await commit(ctx, commitSubject(env, stopped));
  }

  const head = await git.head();
  if (head === start) {
    if (stopped) failStoppedEmpty(ctx, 'left no changes to keep');
    fail('no_changes', `already up to date with ${base} and the agent changed nothing`);
  }

  await push(ctx, { since: start });
  const report = run?.report;
  const pr = await openOrUpdatePull(ctx.github, env, {
    base,
    summary: report?.structured ? report.result : '',
    usage: report?.usage,
    partial: stopped,
    record: attemptRecord(env, { stopped, usage: report?.usage, conflicts }),
  });
  // Partial work answers no thread: the next attempt, which finishes it, does.
  if (stopped || !env.review) return pushedOutcome(ctx, head, pr, stopped);
  const tally = await answerThreads(ctx, pr.number, env.review.threads, head, touched);
  log(
    ctx,
    `answered ${tally.replied} review thread(s)${tally.alreadyAnswered ? `, ${tally.alreadyAnswered} already answered` : ''}${tally.failed ? `, ${tally.failed} could not be answered` : ''}`,
  );
  return pushedOutcome(
    ctx,
    head,
    pr,
    false,
    `; answered ${tally.replied + tally.alreadyAnswered} of ${env.review.threads.length} review threads`,
  );
}

async function stillConflicted(cwd: string, files: string[]): Promise<string[]> {
  const left: string[] = [];
  for (const file of files) {
    const text = await readFile(join(cwd, file), 'utf8').catch(() => '');
    if (CONFLICT_MARKER.test(text)) left.push(file);
  }
  return left;
}
