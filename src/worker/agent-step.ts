import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keepBranchConfig, restoreFromBase } from './agent-config.js';
import {
  agentGitDir,
  readRegularFile,
  removeSpecialFiles,
  takeBackFolders,
  type AgentGitDir,
} from './agent-files.js';
import { closeAgentNetwork, describeNetwork, networkSetting } from './agent-network.js';
import { createAgentUser } from './agent-user.js';
import { heldCredentials } from './api-key-proxy.js';
import { stopGraceMs } from '../protocol/deadline.js';
import type { Usage } from '../protocol/markers.js';
import type { AgentResult } from './handoff.js';
import { withoutTreeAttributes } from './merge-attributes.js';
import { fail } from './outcome.js';
import { fixPrompt, planPrompt, workPrompt } from './prompts.js';
import { openSnapshotter, type Snapshotter } from './snapshot.js';
import {
  ensureOnTaskBranch,
  failStoppedEmpty,
  invokeAgent,
  log,
  PARTIAL_PREFIX,
  taskTrailer,
  type AgentContext,
  type AgentRun,
} from './steps.js';

const CONFLICT_MARKER = /^(<{7}|>{7})(\s|$)/m;

/** What the agent job hands the publish job: the result and the change as a binary patch. */
export interface AgentOutput {
  result: AgentResult;
  patch: Buffer;
}

/** Where the work starts, set up in the checkout before the agent runs. */
interface Prepared {
  prompt: string;
  /** The commit's parents (the first is what the patch applies to). */
  parents: string[];
  lease: string | null;
  conflicts: string[];
  /** False: nothing for the agent to do (a `fix` whose merge was clean and asked nothing). */
  needsAgent: boolean;
}

/**
 * The agent job (docs/worker.md, "Three jobs"): prepare the checkout for the mode, restore the
 * agent's configuration from the base, run the agent, and describe what it changed. It holds
 * no GitHub credential, and after the agent has run it reads the checkout only as files.
 */
export async function runAgentStep(ctx: AgentContext): Promise<AgentOutput> {
  // The agent, the planner's too, owns .git/: a later step of this job (actions/checkout's post
  // step runs `git submodule foreach` there) or a reused runner must find none of its config,
  // hooks or fsmonitor, whatever modes it left there and however the worker ends.
  const agentGit = agentGitDir(ctx.cwd);
  try {
    const base = ctx.env.base ?? defaultBranchOf(ctx.rawEnv);
    return ctx.env.mode === 'plan'
      ? await planStep(ctx, base)
      : await changeStep(ctx, base, agentGit);
  } finally {
    await agentGit.remove();
  }
}

/** `work` and `fix`: the agent changes the branch; the change is read as a patch. */
async function changeStep(
  ctx: AgentContext,
  startBase: string,
  agentGit: AgentGitDir,
): Promise<AgentOutput> {
  const { env } = ctx;
  let base = startBase;

  await ensureOnTaskBranch(ctx);
  let baseSha = await ctx.git.resolve(`refs/remotes/origin/${base}`);
  // A stack parent's branch deleted before the checkout (its PR merged): the run's base.
  if (!baseSha && env.runBase && env.runBase !== base) {
    log(ctx, `${base} no longer exists (its pull request merged): working against ${env.runBase}`);
    base = env.runBase;
    baseSha = await ctx.git.resolve(`refs/remotes/origin/${base}`);
  }
  if (!baseSha)
    fail('bad_input', `the checkout has no origin/${base}: check out with fetch-depth: 0`);
  const configSha = await configSource(ctx, base, baseSha);
  const prepared = env.mode === 'work' ? await prepareWork(ctx, base) : await prepareFix(ctx, base);

  const headSha = await ctx.git.head();
  const before = await openSnapshotter(ctx.cwd, [join(ctx.cwd, '.git', 'objects')]);
  let trees: { before: string; restored: string };
  try {
    const treeBefore = await before.tree(headSha);
    const restored = await restoreFromBase(ctx.git, ctx.cwd, configSha.sha);
    if (restored.length > 0)
      log(ctx, `agent configuration as on ${configSha.branch}: ${restored.join(', ')}`);
    trees = { before: treeBefore, restored: await before.tree(treeBefore) };
    // Everything describe() reads, copied while .git/ is still ours.
    await before.adopt([...prepared.parents, trees.before, trees.restored]);
  } catch (error) {
    await before.close();
    throw error;
  }

  let run: AgentRun | undefined;
  try {
    if (prepared.needsAgent) run = await isolated(ctx, () => invokeAgent(ctx, prepared.prompt));
    return await describe(ctx, agentGit, before, trees, prepared, run);
  } finally {
    await before.close();
  }
}

/**
 * Where the agent's configuration comes from: the base, unless it is a stack parent's branch
 * (`run_base` set, docs/stacking.md). That branch is the parent agent's work, its PR still in
 * review: the run's base is what people reviewed (docs/worker.md, "Agent configuration").
 */
async function configSource(
  ctx: AgentContext,
  base: string,
  baseSha: string,
): Promise<{ branch: string; sha: string }> {
  const { runBase } = ctx.env;
  if (!runBase || runBase === base) return { branch: base, sha: baseSha };
  const sha = await ctx.git.resolve(`refs/remotes/origin/${runBase}`);
  if (!sha)
    fail('bad_input', `the checkout has no origin/${runBase}: check out with fetch-depth: 0`);
  return { branch: runBase, sha };
}

/** The change, read through a git directory the agent never saw (src/worker/snapshot.ts). */
async function describe(
  ctx: AgentContext,
  agentGit: AgentGitDir,
  before: Snapshotter,
  trees: { before: string; restored: string },
  prepared: Prepared,
  run: AgentRun | undefined,
): Promise<AgentOutput> {
  const stopped = run?.stopped ?? false;
  // The agent's processes are gone: its .git/ leaves the checkout before anything it left is read.
  await agentGit.moveOut();
  // A FIFO it left would hold any read of it (git's too), and one in a folder it made unreadable
  // would be found by git alone.
  await takeBackFolders(ctx.cwd);
  const special = await removeSpecialFiles(ctx.cwd);
  if (special.length > 0)
    log(ctx, `removed what git cannot record (FIFOs, sockets): ${special.join(', ')}`);
  // The time the worker keeps for itself after the agent (docs/worker.md, "The time limit").
  const timeoutMs = stopGraceMs(ctx.env.timeoutMinutes * 60_000);
  const snap = await openSnapshotter(ctx.cwd, [before.objects], { timeoutMs });
  try {
    const after = await snap.tree(trees.restored);
    const final = await keepBranchConfig(snap, { ...trees, after });
    const [first] = prepared.parents as [string];
    const names = async (from: string) =>
      (await snap.git(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, final])).stdout
        .split('\0')
        .filter(Boolean);
    const changed = await names(first);
    if (changed.length === 0 && prepared.parents.length === 1) {
      if (stopped) failStoppedEmpty(ctx, 'left no changes to keep');
      fail(
        'no_changes',
        ctx.env.mode === 'fix'
          ? `already up to date with the base and the agent changed nothing`
          : 'the agent left no changes to commit',
      );
    }
    if (prepared.conflicts.length > 0)
      await checkResolved(ctx, agentGit, snap, final, prepared, stopped);
    const patch = (
      await snap.git(['diff', '--binary', '--full-index', '--no-renames', first, final])
    ).raw;
    const report = run?.report;
    return {
      patch,
      result: {
        ...identity(ctx),
        stopped,
        summary: report?.structured ? report.result : '',
        usage: usageOf(report?.usage),
        parents: prepared.parents,
        lease: prepared.lease,
        conflicts: prepared.conflicts,
        touched: await names(trees.before),
      },
    };
  } finally {
    await snap.close();
  }
}

async function checkResolved(
  ctx: AgentContext,
  agentGit: AgentGitDir,
  snap: Snapshotter,
  tree: string,
  prepared: Prepared,
  stopped: boolean,
): Promise<void> {
  // A file read, not git: the agent's .git/ runs nothing of ours. Gone means it gave up.
  const merging = (await readRegularFile(join(agentGit.path, 'MERGE_HEAD'))) ?? '';
  if (merging.trim() !== prepared.parents[1]) {
    if (stopped) failStoppedEmpty(ctx, 'the merge it was resolving is gone');
    fail('agent_failed', 'the agent abandoned the merge');
  }
  const left: string[] = [];
  for (const file of prepared.conflicts) {
    const blob = await snap.git(['cat-file', 'blob', `${tree}:${file}`], { allowFail: true });
    if (blob.code === 0 && CONFLICT_MARKER.test(blob.stdout)) left.push(file);
  }
  if (left.length === 0) return;
  // A merge commit with conflict markers is no work to build on.
  if (stopped)
    failStoppedEmpty(ctx, `left conflict markers in ${left.join(', ')}, so nothing is kept`);
  fail('agent_failed', `conflict markers left in: ${left.join(', ')}`);
}

/** `work`: attempt 1 builds on the new branch; a retry starts again from the base. */
async function prepareWork(ctx: AgentContext, base: string): Promise<Prepared> {
  const { env, git } = ctx;
  let lease: string | null = null;
  if (env.attempt > 1) {
    // What the publish job expects to overwrite: if someone pushed meanwhile, the push refuses.
    lease = (await git.resolve(`refs/remotes/origin/${env.branch}`)) ?? null;
    log(ctx, `attempt ${env.attempt}: starting again from origin/${base}`);
    await git.run(['reset', '--hard', '--quiet', `refs/remotes/origin/${base}`]);
    await git.run(['clean', '-ffdq']);
  }
  return {
    prompt: workPrompt({ ...env, base }),
    parents: [await git.head()],
    lease,
    conflicts: [],
    needsAgent: true,
  };
}

/**
 * `fix`: build on the PR's commits (never rewrite them: reviewers have seen them). Merge the
 * base in, and let the agent resolve conflicts and address feedback.
 */
async function prepareFix(ctx: AgentContext, base: string): Promise<Prepared> {
  const { env, git } = ctx;
  const start = await git.head();
  const baseSha = (await git.resolve(`refs/remotes/origin/${base}`))!;
  // The branch ends with a stopped attempt's work: this one finishes it.
  const continuing = (await git.out(['log', '-1', '--format=%s', start])).startsWith(
    PARTIAL_PREFIX,
  );
  const upToDate = await git.isAncestor(baseSha, start);
  let conflicts: string[] = [];
  if (!upToDate) {
    const subject = `Merge ${base} into ${env.branch}`;
    const merge = await withoutTreeAttributes(git, () =>
      git.run(['merge', '--no-edit', '-m', subject, '-m', taskTrailer(env), baseSha], {
        allowFail: true,
      }),
    );
    conflicts = merge.code === 0 ? [] : await git.unmergedFiles();
    if (merge.code !== 0 && conflicts.length === 0) {
      fail(
        'git_failed',
        `git merge origin/${base} failed: ${merge.stderr.trim() || merge.stdout.trim()}`,
      );
    }
    if (conflicts.length > 0) log(ctx, `merging ${base} conflicts in: ${conflicts.join(', ')}`);
  }
  return {
    prompt: fixPrompt({ ...env, base, conflicts, continuing }),
    parents: upToDate ? [start] : [start, baseSha],
    lease: null,
    conflicts,
    // A clean merge with nothing to address needs no agent (and costs nothing).
    needsAgent:
      continuing ||
      conflicts.length > 0 ||
      env.feedback.trim() !== '' ||
      env.review !== undefined ||
      env.checks.length > 0,
  };
}

/** `plan`: the agent reads the repository and answers with a tasks block; nothing is pushed. */
async function planStep(ctx: AgentContext, base: string): Promise<AgentOutput> {
  const baseSha = await ctx.git.resolve(`refs/remotes/origin/${base}`);
  if (baseSha) await restoreFromBase(ctx.git, ctx.cwd, baseSha);
  // The issue as it was labelled, from the assignment: an edit since then does not reach it.
  const prompt = planPrompt(ctx.env, { title: ctx.env.title, body: ctx.env.prompt });
  const { report, stopped } = await isolated(ctx, () => invokeAgent(ctx, prompt));
  // A plan cut short is no plan: there is nothing partial to keep.
  if (stopped) failStoppedEmpty(ctx, 'a plan cut short is no plan');
  return {
    patch: Buffer.alloc(0),
    result: {
      ...identity(ctx),
      stopped: false,
      summary: report.result,
      usage: usageOf(report.usage),
      parents: [],
      lease: null,
      conflicts: [],
      touched: [],
    },
  };
}

/**
 * Runs the agent as a user of its own when the runner allows it (src/worker/agent-user.ts), with
 * its network closed as `worker.network.allow` says (src/worker/agent-network.ts).
 */
async function isolated<T>(ctx: AgentContext, fn: () => Promise<T>): Promise<T> {
  let held: string[];
  try {
    held = heldCredentials(ctx.rawEnv);
  } catch (error) {
    // Custom headers the proxy refuses: said before a user is made for the agent.
    fail('bad_input', (error as Error).message);
  }
  const network = networkSetting(ctx.env.networkAllow);
  const user = await createAgentUser(ctx.cwd);
  if (!user && held.length > 0)
    // A process may read the environment of any other process of its user
    // (/proc/<pid>/environ): the key proxy keeps nothing from an agent of the worker's own user.
    fail(
      'agent_failed',
      `the agent would run as the worker's own user (no root and no password-free sudo) and could read ${held.join(', ')} from the worker's environment: run the agent job as root (a \`container:\` job) or give the runner's user password-free sudo, so that the agent runs as a user of its own`,
    );
  if (!user && network.kind === 'closed')
    // Netfilter tells the agent's traffic from the worker's by the user that sends it.
    fail(
      'network_unrestricted',
      `worker.network.allow closes the agent's network, which takes a user of the agent's own, and the runner gives the worker no root and no password-free sudo to make one: run the agent job as root (a \`container:\` job), give the runner's user password-free sudo, or set worker.network.allow to ["*"]`,
    );
  if (!user) {
    log(
      ctx,
      "the agent runs as the worker's own user (no root and no password-free sudo): it can read this job's runtime token; it holds no GitHub credential",
    );
    log(ctx, describeNetwork(network));
    return fn();
  }
  log(ctx, `the agent runs as ${user.name}, a user without sudo`);
  let closed;
  try {
    if (network.kind === 'closed')
      closed = await closeAgentNetwork(user, network.allow, (line) => log(ctx, line));
  } catch (error) {
    await user.finish();
    throw error;
  }
  log(ctx, describeNetwork(network));
  ctx.user = user;
  ctx.network = closed;
  try {
    return await fn();
  } finally {
    ctx.user = undefined;
    ctx.network = undefined;
    // Its network opens again only once every process of its user is known to be gone: finish()
    // throws when one survived or the worker could not look (an agent can use up the worker's
    // file descriptors, and then no kill starts), and a survivor would have the open network.
    let leftovers: string[] | undefined;
    try {
      leftovers = await user.finish();
    } finally {
      await (leftovers ? closed?.open() : closed?.leaveClosed());
    }
    // Later jobs on a reused runner, of any repository, could read them: said, loudly.
    if (leftovers.length > 0)
      fail(
        'agent_failed',
        `the agent's user ${user.name} left what later jobs on this runner could read, and it could not be removed: ${leftovers.join('; ')}`,
      );
  }
}

function identity(ctx: AgentContext) {
  const { env } = ctx;
  return {
    version: 1 as const,
    task_id: env.taskId,
    issue: String(env.issue),
    attempt: String(env.attempt),
    mode: env.mode,
  };
}

function usageOf(usage: Usage | undefined): AgentResult['usage'] {
  return usage ? { ...usage } : null;
}

/** The repository's default branch, from the event GitHub hands every step of the run. */
function defaultBranchOf(env: NodeJS.ProcessEnv): string {
  const path = env.GITHUB_EVENT_PATH;
  let branch: unknown;
  try {
    const event = JSON.parse(path ? readFileSync(path, 'utf8') : '{}') as {
      repository?: { default_branch?: unknown };
    };
    branch = event.repository?.default_branch;
  } catch {
    branch = undefined;
  }
  if (typeof branch !== 'string' || branch === '')
    fail(
      'bad_input',
      'no base branch: the assignment names none and the event has no default branch',
    );
  return branch;
}
