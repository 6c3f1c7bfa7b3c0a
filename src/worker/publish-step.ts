import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { inertPlainText } from '../core/inert-markdown.js';
import { isAgentConfig } from './agent-config.js';
import { withoutTreeAttributes } from './merge-attributes.js';
import { isGitComponent, isProtectedFile, protectedChange } from './protected-paths.js';
import { attemptRecord } from './attempt-record.js';
import type { AgentResult } from './handoff.js';
import { fail, type FailureReason, type WorkerOutcome } from './outcome.js';
import { publishPlan } from './plan-mode.js';
import { openOrUpdatePull } from './pull-request.js';
import { answerThreads } from './review-replies.js';
import {
  commitSubject,
  ensureOnTaskBranch,
  failStoppedEmpty,
  log,
  PARTIAL_PREFIX,
  push,
  pushedOutcome,
  resolveBase,
  taskTrailer,
  WORKFLOWS_DIR,
  type PublishContext,
} from './steps.js';

/**
 * The publish job (docs/worker.md, "Three jobs"): the agent job's result is untrusted. Its
 * patch is applied to a fresh checkout of the task branch, to the commit it names, only
 * when that commit is one this attempt may build on; a change that may not be pushed is
 * refused; the branch alone is pushed; then the PR is opened or updated and the review
 * threads answered. Nothing of the agent's runs here: git only reads and writes objects.
 */
export async function runPublishStep(
  ctx: PublishContext,
  result: AgentResult,
  patch: Buffer,
): Promise<WorkerOutcome> {
  const { env } = ctx;
  for (const [field, expected] of [
    ['task_id', env.taskId],
    ['issue', String(env.issue)],
    ['attempt', String(env.attempt)],
    ['mode', env.mode],
  ] as const) {
    if (result[field] !== expected)
      fail('bad_result', `the result is for ${field} ${result[field]}, this run's is ${expected}`);
  }
  // This attempt's: charged as the job ends unless the PR's usage marker records it. A plan's
  // comment records it too, but a plan may never be accepted: the notice stays.
  ctx.unrecorded.usage = result.usage ?? undefined;
  if (env.mode === 'plan') return publishPlan(ctx, result);

  await ensureOnTaskBranch(ctx);
  const base = await publishBase(ctx);
  await ctx.git.fetchBranches([base, env.branch]);
  const head = await ctx.git.resolve(`refs/remotes/origin/${env.branch}`);
  const { parents, mergedFrom, catchUp } = await checkParents(ctx, result, base, head);

  const tree = await applyPatch(ctx, parents[0]!, patch);
  const changed = await changedPaths(ctx, parents[0]!, tree);
  if (changed.length === 0 && parents.length === 1) {
    if (result.stopped) failStoppedEmpty(ctx, 'left no changes to keep');
    fail('no_changes', 'the agent left no changes to commit');
  }
  // GitHub refuses a push from an App token without the `workflows` permission when it
  // creates or changes a workflow file, and the coordinator never grants that permission.
  // Failing here names the files; GitHub's refusal would only say "refusing to allow". The
  // coordinator's configuration is the agent's own leash: no agent changes it.
  const refused = protectedChange(changed);
  if (refused) fail(refused.reason, `the change touches ${protectedText(refused)}`);
  const [first, merged] = parents;
  const leftOut = merged ? await protectedLeftOut(ctx, first!, merged, tree) : undefined;
  if (leftOut) {
    fail(
      leftOut.reason,
      `the merge of ${mergedFrom} leaves out its changes to ${protectedText(leftOut)}, so the pull request would undo them`,
    );
  }

  const own = await commitTree(ctx, tree, parents, commitMessage(ctx, result, mergedFrom));
  const commit = catchUp ? await catchUpWith(ctx, own, catchUp) : own;
  const rewrite = env.mode === 'work' && env.attempt > 1;
  await push(ctx, commit, rewrite ? { lease: head ?? '' } : {});
  const agentConfigChanged = await agentConfigChanges(ctx, base, commit);
  if (agentConfigChanged.length > 0)
    log(ctx, `the pull request changes agent configuration: ${agentConfigChanged.join(', ')}`);

  const pr = await openOrUpdatePull(ctx.github, env, {
    base,
    ...(env.runBase && { fallbackBase: env.runBase }),
    summary: result.summary,
    usage: result.usage ?? undefined,
    partial: result.stopped,
    record: attemptRecord(env, {
      stopped: result.stopped,
      usage: result.usage ?? undefined,
      conflicts: result.conflicts,
    }),
    agentConfigChanged,
  });
  ctx.unrecorded.usage = undefined;
  // Partial work answers no thread: the next attempt, which finishes it, does.
  if (result.stopped || !env.review) return pushedOutcome(ctx, commit, pr, result.stopped);
  // A set: both lists may be long (a forged result's), and a scan of one per entry of the other
  // would hold the publish job.
  const changedSet = new Set(changed);
  const touched = new Set(result.touched.filter((p) => changedSet.has(p)));
  const tally = await answerThreads(ctx, pr.number, env.review.threads, commit, touched);
  log(
    ctx,
    `answered ${tally.replied} review thread(s)${tally.alreadyAnswered ? `, ${tally.alreadyAnswered} already answered` : ''}${tally.failed ? `, ${tally.failed} could not be answered` : ''}`,
  );
  return pushedOutcome(
    ctx,
    commit,
    pr,
    false,
    `; answered ${tally.replied + tally.alreadyAnswered} of ${env.review.threads.length} review threads`,
  );
}

/**
 * The branch the PR targets: the assignment's base, unless that is a stack parent's branch
 * that is gone (the parent merged and GitHub deleted its branch while the agent worked; GitHub
 * refuses a PR against a missing base). The PR then targets the run's base, where GitHub would
 * have retargeted it, and the coordinator takes the task as unstacked (docs/stacking.md).
 */
async function publishBase(ctx: PublishContext): Promise<string> {
  const base = await resolveBase(ctx);
  const { runBase } = ctx.env;
  if (!runBase || runBase === base || (await ctx.git.remoteBranchExists(base))) return base;
  log(
    ctx,
    `${base} no longer exists (its pull request merged): the pull request targets ${runBase}`,
  );
  return runBase;
}

/** The parents a result may name, and what its merged parent was merged from. */
interface Parents {
  parents: string[];
  /** For a merge: the branch, or the stack parent's PR, its second parent is a commit of. */
  mergedFrom: string;
  /** The stack parent's head to merge in after the agent's commit (`catchUpWith`). */
  catchUp: CatchUp | undefined;
}

/**
 * A stack parent's head that moved while the agent worked. `required`: the attempt started from
 * older work of the parent, and may be pushed only with the head merged in (`startFrom`). Not
 * required: a first attempt or a fix that started on the branch head, which it may be pushed on
 * as it is; merged in, the PR is up to date with its parent at once instead of waiting for the
 * coordinator's update (docs/stacking.md, `restack`).
 */
interface CatchUp {
  parent: ParentHead;
  required: boolean;
}

/** The current head of the stack parent's work: its branch, or its PR (`#<n>`). */
interface ParentHead {
  name: string;
  sha: string;
}

/**
 * The parents the result names, accepted only as this attempt may build on them: the branch
 * head as it is now, and a start that comes from where the attempt works (`startFrom`): a `work`
 * retry's first parent, replacing the head it saw; a `fix`'s merged parent, one the branch does
 * not already hold (merging a commit it holds brings nothing in, and GitHub's view of the merge
 * commit would hide the lines that match it).
 */
async function checkParents(
  ctx: PublishContext,
  result: AgentResult,
  base: string,
  head: string | undefined,
): Promise<Parents> {
  const { env } = ctx;
  const [first, merged, ...rest] = result.parents;
  if (!first || rest.length > 0) fail('bad_result', 'the result names no commit to build on');
  const starts = startsOf(ctx, base);
  if (env.mode === 'work' && env.attempt > 1) {
    const from = merged === undefined ? await startFrom(ctx, starts, first, head) : undefined;
    if (from === undefined)
      fail(
        'bad_result',
        `a retry starts from ${starts.described}; the result names another commit`,
      );
    if (result.lease !== (head ?? null))
      fail('push_failed', `${env.branch} moved while the agent worked: not overwriting it`);
    return { parents: [first], mergedFrom: base, catchUp: from.catchUp };
  }
  if (first !== head)
    fail('push_failed', `${env.branch} moved while the agent worked (now ${head ?? 'gone'})`);
  if (merged === undefined)
    return {
      parents: [first],
      mergedFrom: base,
      catchUp: await parentMovedSince(ctx, starts, first),
    };
  if (env.mode !== 'fix') fail('bad_result', 'only a fix merges');
  if (await ctx.git.isAncestor(merged, head))
    fail('bad_result', `a fix merges only what ${env.branch} does not hold; it holds ${merged}`);
  const from = await startFrom(ctx, starts, merged, head);
  if (from === undefined)
    fail('bad_result', `a fix merges ${starts.described}; the result names another commit`);
  return { parents: [first, merged], mergedFrom: from.name, catchUp: from.catchUp };
}

/**
 * The parent's head, when the parent's branch (the base) moved on while the agent worked to a
 * commit the branch does not hold: a first attempt's (its branch was created at the parent's
 * head), a fix's that merged nothing (its branch held the parent's head when it started).
 */
async function parentMovedSince(
  ctx: PublishContext,
  starts: Starts,
  head: string,
): Promise<CatchUp | undefined> {
  const { parentBranch } = starts;
  if (!parentBranch) return undefined;
  const sha = await ctx.git.resolve(`refs/remotes/origin/${parentBranch}`);
  if (!sha || (await ctx.git.isAncestor(sha, head))) return undefined;
  return { parent: { name: parentBranch, sha }, required: false };
}

/** Where an attempt may start from, or what a fix may merge in (`startFrom`). */
interface Starts {
  /** The run's own base, any commit of it; unset while the base is the stack parent's branch. */
  runBase?: string;
  /** The stack parent's branch while it is the base: its head, or older work with the head merged in. */
  parentBranch?: string;
  /** For a refusal: what a start may be. */
  described: string;
}

function startsOf(ctx: PublishContext, base: string): Starts {
  const { runBase, stackParentPr } = ctx.env;
  const onParent = runBase !== undefined && base !== runBase;
  const parent = onParent ? base : stackParentPr !== undefined && `#${stackParentPr}`;
  return {
    ...(onParent ? { parentBranch: base } : { runBase: base }),
    described: [!onParent && base, parent && `a commit of ${parent}`].filter(Boolean).join(' or '),
  };
}

/** What a start comes from: its name, and the parent's head to merge in after it, if any. */
interface Start {
  name: string;
  catchUp?: CatchUp;
}

/**
 * Where `sha` comes from, if it is a start this attempt may build on: a commit of the run's base
 * no older than what the branch already holds of it (their merge base with the head: an older
 * one would bring back what the base has since taken out), or the stack parent's work: its branch
 * while that is the base, else its PR (`stack_parent_pr`, read as `refs/pull/<n>/head`, which
 * GitHub keeps after a squash or rebase merge put new commits on the base and none of the
 * parent's own, docs/stacking.md). The base is what people merged: a commit of it that the base
 * moved past while the agent worked brings in nothing but the base. The parent's work is another
 * agent's, changed by its review: a start older than its current head (one of that head's
 * ancestors: the head moved while the agent worked) is taken only with that head merged in after
 * (`catchUp`). Without it, what the review took out since would come back through the older
 * commit, and the child's diff against the parent's branch (their merge base being that commit)
 * would not show it; with it, the pushed commit holds the parent's head, so that diff is the
 * agent's change and nothing else.
 */
async function startFrom(
  ctx: PublishContext,
  starts: Starts,
  sha: string,
  head: string | undefined,
): Promise<Start | undefined> {
  if (starts.runBase !== undefined) {
    const ref = `refs/remotes/origin/${starts.runBase}`;
    const fork = head ? await ctx.git.out(['merge-base', head, ref]).catch(() => '') : '';
    const sinceFork = fork === '' || (await ctx.git.isAncestor(fork, sha));
    if (sinceFork && (await ctx.git.isAncestor(sha, ref))) return { name: starts.runBase };
  }
  // The parent's work as it is now: its branch while that is the base, else its PR. Not the PR
  // while the branch is the base: GitHub moves the PR's ref after the branch, and never once the
  // PR is closed, so the ref may be an older head, or one the branch was force-pushed away from.
  const { parentBranch } = starts;
  const ref = parentBranch
    ? `refs/remotes/origin/${parentBranch}`
    : await fetchStackParentPull(ctx);
  const currentSha = ref && (await ctx.git.resolve(ref));
  if (!currentSha) return undefined;
  const current = { name: parentBranch ?? `#${ctx.env.stackParentPr}`, sha: currentSha };
  if (sha === current.sha) return { name: current.name };
  if (await ctx.git.isAncestor(sha, current.sha))
    return { name: current.name, catchUp: { parent: current, required: true } };
  return undefined;
}

/**
 * `commit` with the stack parent's current head merged into it (`CatchUp`): a three-way merge
 * whose base is the older start, so the parent's head comes in whole (what its review took out
 * stays out) and the agent's change goes on top. Where the two conflict, or the head changed
 * files under `.github/workflows/` since the start (which the worker's token may not push:
 * GitHub compares the merge with its first parent, the agent's commit), a required merge fails
 * the attempt (`push_failed`, `workflow_files_changed`: the next attempt starts from the new
 * head); otherwise the commit is pushed as it is, and the coordinator's update of the PR brings
 * the parent in. Git writes objects only (`merge-tree --write-tree`, git 2.38 or later), with no
 * `.gitattributes` of the checkout picking its merge driver (src/worker/merge-attributes.ts).
 */
async function catchUpWith(
  ctx: PublishContext,
  commit: string,
  { parent, required }: CatchUp,
): Promise<string> {
  const merged = await withoutTreeAttributes(ctx.git, () =>
    ctx.git.run(
      [
        ...PROTECT_PATHS,
        'merge-tree',
        '--write-tree',
        '--name-only',
        '--no-messages',
        commit,
        parent.sha,
      ],
      { allowFail: true },
    ),
  );
  const moved = `${parent.name} moved to ${parent.sha} while the agent worked`;
  const without = (reason: FailureReason, why: string): string => {
    if (required) fail(reason, `${moved}, and merging it ${why}`);
    log(ctx, `${moved}, and merging it ${why}; pushed without it`);
    return commit;
  };
  const [tree = '', ...conflicted] = merged.stdout.split('\n').filter(Boolean);
  if (merged.code === 1)
    return without(
      'push_failed',
      `conflicts with the agent's change: ${[...new Set(conflicted)].slice(0, 20).join(', ')}`,
    );
  if (merged.code !== 0 || !/^[0-9a-f]{40,64}$/.test(tree))
    fail('git_failed', `merging ${parent.name} failed: ${merged.stderr.trim().slice(0, 500)}`);
  const touched = protectedChange(await changedPaths(ctx, commit, tree));
  if (touched) return without(touched.reason, `changes ${protectedText(touched)}`);
  log(ctx, `${moved}: merged it in`);
  return commitTree(
    ctx,
    tree,
    [commit, parent.sha],
    [`Merge ${parent.name} into ${ctx.env.branch}`, taskTrailer(ctx.env)],
  );
}

const STACK_PARENT_REF = 'refs/agent-coordinator/stack-parent';

/**
 * The head of the stack parent's PR, fetched as GitHub keeps it after the PR merged and its
 * branch was deleted (`refs/pull/<n>/head`); undefined when the attempt was not stacked or
 * GitHub has no such ref.
 */
async function fetchStackParentPull(ctx: PublishContext): Promise<string | undefined> {
  const pr = ctx.env.stackParentPr;
  if (pr === undefined) return undefined;
  const fetched = await ctx.git.run(
    ['fetch', '--no-tags', '--quiet', 'origin', `+refs/pull/${pr}/head:${STACK_PARENT_REF}`],
    { auth: true, allowFail: true },
  );
  if (fetched.code === 0) return STACK_PARENT_REF;
  // No such PR here: nothing of it to start from. Anything else is git's failure, not the agent's.
  if (/couldn't find remote ref/i.test(fetched.stderr)) return undefined;
  fail('git_failed', `fetching the head of #${pr} failed: ${fetched.stderr.trim().slice(0, 500)}`);
}

/**
 * Git refuses to put into an index a path that macOS or Windows would read as `.git` (a case
 * variant, an invisible code point, an NTFS short name), whatever the machine it runs on.
 */
const PROTECT_PATHS = ['-c', 'core.protectHFS=true', '-c', 'core.protectNTFS=true'];

/** The patch applied to `parent`'s tree in an index of our own: no working tree, no filters. */
async function applyPatch(ctx: PublishContext, parent: string, patch: Buffer): Promise<string> {
  const index = join(ctx.cwd, '.git', 'agent-coordinator-index');
  const env = { GIT_INDEX_FILE: index };
  try {
    await ctx.git.run(['read-tree', parent], { env });
    if (patch.length > 0) {
      const applied = await ctx.git.run(
        [...PROTECT_PATHS, 'apply', '--cached', '--binary', '--whitespace=nowarn', '-'],
        { env, input: patch, allowFail: true },
      );
      if (applied.code !== 0)
        fail('bad_result', `the patch does not apply: ${applied.stderr.trim().slice(0, 1000)}`);
    }
    return await ctx.git.out(['write-tree'], { env });
  } finally {
    await rm(index, { force: true });
  }
}

/** Paths that differ between `from` and `tree`; a path git itself would never write is refused. */
async function changedPaths(ctx: PublishContext, from: string, tree: string): Promise<string[]> {
  const out = await ctx.git.out([
    'diff-tree',
    '-r',
    '-z',
    '--name-only',
    '--no-renames',
    from,
    tree,
  ]);
  const paths = out.split('\0').filter(Boolean);
  const unsafe = paths.filter((p) => p.split('/').some(isGitComponent));
  if (unsafe.length > 0) fail('bad_result', `the patch writes into .git: ${unsafe.join(', ')}`);
  return paths;
}

/**
 * Protected files (workflow files, the coordinator's configuration) the merged side changed
 * since it forked from the first parent that `tree` does not take as the merged side has them.
 * GitHub, like the check above, compares a merge with its first parent only: a merge that keeps
 * the branch's copy pushes, and the PR then undoes the base's change to them under a "Merge main"
 * subject.
 */
async function protectedLeftOut(
  ctx: PublishContext,
  first: string,
  merged: string,
  tree: string,
): Promise<ProtectedChange | undefined> {
  const fork = await ctx.git.out(['merge-base', first, merged]);
  const theirs = (await changedPaths(ctx, fork, merged)).filter(isProtectedFile);
  if (theirs.length === 0) return undefined;
  const differ = new Set(await changedPaths(ctx, merged, tree));
  return protectedChange(theirs.filter((path) => differ.has(path)));
}

type ProtectedChange = NonNullable<ReturnType<typeof protectedChange>>;

/** The files of a refused change, and why the worker may not push them. */
function protectedText({ reason, paths }: ProtectedChange): string {
  return reason === 'workflow_files_changed'
    ? `files under ${WORKFLOWS_DIR}, which the worker's token may not push: ${paths.join(', ')}`
    : `the coordinator's configuration, which only people change: ${paths.join(', ')}`;
}

function commitMessage(ctx: PublishContext, result: AgentResult, mergedFrom: string): string[] {
  const { env } = ctx;
  const partial = result.stopped ? PARTIAL_PREFIX : '';
  if (result.parents.length < 2) return [commitSubject(env, result.stopped), taskTrailer(env)];
  const subject = `${partial}Merge ${mergedFrom} into ${env.branch}`;
  if (result.conflicts.length === 0) return [subject, taskTrailer(env)];
  // The result's file names are the agent's to write: one line, closing nothing once merged.
  const files = result.conflicts.slice(0, 200).map(inertPlainText).join(', ').slice(0, 10_000);
  return [subject, `Conflicts resolved by the agent: ${files}`, taskTrailer(env)];
}

async function commitTree(
  ctx: PublishContext,
  tree: string,
  parents: string[],
  message: string[],
): Promise<string> {
  const args = [...PROTECT_PATHS, 'commit-tree', tree, ...parents.flatMap((p) => ['-p', p])];
  for (const paragraph of message) args.push('-m', paragraph);
  // Git itself sets the App's bot as author and committer.
  return ctx.git.out(args);
}

/** Agent configuration the PR changes against its base (SPEC §6: said in its body). */
async function agentConfigChanges(
  ctx: PublishContext,
  base: string,
  commit: string,
): Promise<string[]> {
  const fork = await ctx.git.out(['merge-base', `refs/remotes/origin/${base}`, commit]);
  const paths = await changedPaths(ctx, fork, commit);
  return paths.filter(isAgentConfig);
}
