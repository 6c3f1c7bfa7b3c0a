import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fail, type WorkerOutcome } from './outcome.js';
import { openOrUpdatePull } from './pull-request.js';
import { fixPrompt } from './prompts.js';
import {
  commit,
  commitSubject,
  ensureOnTaskBranch,
  invokeAgent,
  log,
  push,
  resolveBase,
  taskTrailer,
  type ModeContext,
} from './steps.js';
import type { AgentReport } from './agent-output.js';

const CONFLICT_MARKER = /^(<{7}|>{7})(\s|$)/m;

/**
 * `fix`: build on the PR's commits (never rewrite them: reviewers have seen them). Merge
 * the base in, let the agent resolve conflicts and address feedback, push without force.
 */
export async function runFixMode(ctx: ModeContext): Promise<WorkerOutcome> {
  const { env, git } = ctx;
  await ensureOnTaskBranch(ctx);
  const base = await resolveBase(ctx);
  await git.fetchBranches([base]);
  const start = await git.head();

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

  let report: AgentReport | undefined;
  // A clean merge with nothing to address needs no agent (and costs nothing).
  if (conflicts.length > 0 || env.feedback.trim()) {
    report = await invokeAgent(ctx, fixPrompt({ ...env, base, conflicts }));
  }

  if (conflicts.length > 0) {
    if (!(await git.resolve('MERGE_HEAD'))) fail('agent_failed', 'the agent abandoned the merge');
    await git.stageAll();
    const unresolved = await stillConflicted(ctx.cwd, conflicts);
    if (unresolved.length > 0) {
      fail('agent_failed', `conflict markers left in: ${unresolved.join(', ')}`);
    }
    // Our own message: git's default would put its "# Conflicts:" notes after the trailer.
    await git.run([
      'commit',
      '--no-verify',
      '--quiet',
      '-m',
      subject,
      '-m',
      `Conflicts resolved by the agent: ${conflicts.join(', ')}`,
      '-m',
      taskTrailer(env),
    ]);
  } else if (await git.stageAll()) {
    await commit(ctx, commitSubject(env));
  }

  const head = await git.head();
  if (head === start)
    fail('no_changes', `already up to date with ${base} and the agent changed nothing`);

  await push(ctx, { since: start });
  const pr = await openOrUpdatePull(ctx.github, env, {
    base,
    summary: report?.structured ? report.result : '',
    usage: report?.usage,
  });
  return {
    ok: true,
    summary: `pushed ${head.slice(0, 12)} to ${env.branch}; PR #${pr.number} ${pr.created ? 'opened' : 'updated'}`,
    commit: head,
    pullRequest: pr,
  };
}

async function stillConflicted(cwd: string, files: string[]): Promise<string[]> {
  const left: string[] = [];
  for (const file of files) {
    const text = await readFile(join(cwd, file), 'utf8').catch(() => '');
    if (CONFLICT_MARKER.test(text)) left.push(file);
  }
  return left;
}
