import { actionsEnv, jobToken, type ActionsEnvOptions } from './actions-env.js';
import { DoubleQueries } from './double-queries.js';
import { branchSha } from './git.js';
import {
  checkRunsOn,
  type CheckConclusion,
  type CheckOutput,
  type CheckStatus,
  type CiJobPlan,
  type JobAnnotation,
  type JobLogStep,
  type PermissionLevel,
  type RoleName,
  type RunConclusion,
  type StatusState,
} from './model.js';
import {
  annotateJob,
  completeRun,
  createCiRun,
  currentJobs,
  findRun,
  logJobStep,
  playCiAttempt,
  playOrHoldCiAttempt,
  rerunFailedJobs,
  startRun,
  startJobs,
  finishNamedJob,
} from './ops/actions.js';
import { registerFromManifest } from './ops/app-manifest.js';
import {
  addToInstallation,
  install,
  removeFromInstallation,
  setSuspended,
  uninstall,
} from './ops/installations.js';
import { createCheckRun, createStatus, updateCheckRun } from './ops/checks.js';
import {
  addLabels,
  createComment,
  editComment,
  editIssue,
  openIssue,
  removeLabel,
} from './ops/issues.js';
import {
  dequeue,
  enableMergeQueue,
  processMergeQueue,
  type QueueRunResult,
} from './ops/merge-queue.js';
import type { Sent } from './ops/pull-events.js';
import {
  createReview,
  dismissReview,
  editPullBody,
  mergePull,
  openPull,
  replyToReviewComment,
  requestReviewers,
  type MergeMethod,
  type ReviewEvent,
} from './ops/pulls.js';
import { deleteBranch, pushCommit, pushMerge } from './ops/refs.js';
import { changeReviewComment, resolveThread, type DraftComment } from './ops/review-threads.js';
import {
  addWorkflow,
  createRepo,
  ensureFork,
  networkRoot,
  type CreateRepoOptions,
  roleOf,
  type WorkflowSpec,
} from './ops/repos.js';
import type { WorkerOutcome, WorkerPolicy } from './worker/outcomes.js';

async function settle(sent: Sent): Promise<void> {
  await Promise.all(sent);
}

// Scenario verbs: each changes the double's state the way the named GitHub action would
// and resolves once the webhooks it caused have been answered by the receiver.
export class GitHubDouble extends DoubleQueries {
  // A user posting the setup page's form to /settings/apps/new and clicking "Create": the code
  // GitHub appends to the manifest's redirect_url (throws what GitHub's form would refuse).
  registerAppFromManifest(manifest: unknown): string {
    return registerFromManifest(this.core, manifest);
  }

  async createRepo(options: CreateRepoOptions): Promise<string> {
    return createRepo(this.core, options).fullName;
  }

  /** `owner`'s fork of `repo` (made once; GitHub names it `owner/<name>`). */
  fork(repo: string, owner: string): string {
    return ensureFork(this.core, this.repoOf(repo), owner).fullName;
  }

  /**
   * The owner (`by`) takes the repository out of the App's installation:
   * `installation_repositories.removed` (ops/installations.ts).
   */
  async removeFromInstallation(repo: string, by: string): Promise<void> {
    await settle(removeFromInstallation(this.core, this.repoOf(repo), this.core.account(by)));
  }

  /** The owner gives it back: `installation_repositories.added`. */
  async addToInstallation(repo: string, by: string): Promise<void> {
    await settle(addToInstallation(this.core, this.repoOf(repo), this.core.account(by)));
  }

  /** The owner uninstalls the App from the account: `installation.deleted`. */
  async uninstall(owner: string, by: string): Promise<void> {
    await settle(uninstall(this.core, this.core.account(owner), this.core.account(by)));
  }

  /** The App installed on the account again, a new installation: `installation.created`. */
  async install(owner: string, by: string): Promise<void> {
    await settle(install(this.core, this.core.account(owner), this.core.account(by)));
  }

  /** The owner suspends the installation (`installation.suspend`), or lifts it (`unsuspend`). */
  async setInstallationSuspended(owner: string, suspended: boolean, by: string): Promise<void> {
    await settle(
      setSuspended(this.core, this.core.account(owner), suspended, this.core.account(by)),
    );
  }

  async addWorkflow(repo: string, spec: WorkflowSpec): Promise<number> {
    return addWorkflow(this.core, this.repoOf(repo), spec).id;
  }

  async editPullBody(repo: string, number: number, body: string, by: string): Promise<void> {
    const r = this.repoOf(repo);
    await settle(
      editPullBody(this.core, r, this.pullOf(repo, number), body, this.core.account(by)),
    );
  }

  async setPermission(repo: string, login: string, role: RoleName): Promise<void> {
    this.repoOf(repo).roles.set(login.toLowerCase(), role);
    this.core.account(login);
    this.core.changed('permission', { repo, login, role });
  }

  async setRequiredChecks(
    repo: string,
    branch: string,
    names: string[],
    options: { strict?: boolean; apps?: Record<string, number> } = {},
  ): Promise<void> {
    const r = this.repoOf(repo);
    r.protection.set(branch, {
      requiredChecks: [...names],
      requiredCheckApps: new Map(Object.entries(options.apps ?? {})),
      strict: options.strict ?? r.protection.get(branch)?.strict ?? false,
    });
    this.core.changed('protection', { repo, branch });
  }

  async openIssue(
    repo: string,
    input: { title: string; body?: string; user: string; labels?: string[] },
  ): Promise<number> {
    const { issue, sent } = openIssue(this.core, this.repoOf(repo), {
      ...input,
      user: this.core.account(input.user),
    });
    await settle(sent);
    return issue.number;
  }

  async editIssue(
    repo: string,
    number: number,
    edit: { title?: string; body?: string },
    by: string,
  ): Promise<void> {
    await settle(
      editIssue(
        this.core,
        this.repoOf(repo),
        this.issueOf(repo, number),
        edit,
        this.core.account(by),
      ),
    );
  }

  async addLabel(repo: string, number: number, label: string, by: string): Promise<void> {
    await settle(
      addLabels(
        this.core,
        this.repoOf(repo),
        this.issueOf(repo, number),
        [label],
        this.core.account(by),
      ),
    );
  }

  async removeLabel(repo: string, number: number, label: string, by: string): Promise<void> {
    await settle(
      removeLabel(
        this.core,
        this.repoOf(repo),
        this.issueOf(repo, number),
        label,
        this.core.account(by),
      ) ?? [],
    );
  }

  async closeIssue(
    repo: string,
    number: number,
    by: string,
    reason: 'completed' | 'not_planned' = 'completed',
  ): Promise<void> {
    const r = this.repoOf(repo);
    const issue = this.issueOf(repo, number);
    // GitHub lets an issue's author close it, triage or more close any issue, and so does an App
    // or workflow token with issues: write (a bot).
    const role = roleOf(r, by);
    const mayClose =
      issue.user.login.toLowerCase() === by.toLowerCase() ||
      this.core.account(by).type === 'Bot' ||
      (role !== 'read' && role !== 'none');
    if (!mayClose)
      throw new Error(`github double: ${by} (${role}) may not close ${repo}#${number}`);
    await settle(
      editIssue(
        this.core,
        r,
        issue,
        { state: 'closed', stateReason: reason },
        this.core.account(by),
      ),
    );
  }

  async reopenIssue(repo: string, number: number, by: string): Promise<void> {
    await settle(
      editIssue(
        this.core,
        this.repoOf(repo),
        this.issueOf(repo, number),
        { state: 'open' },
        this.core.account(by),
      ),
    );
  }

  // `by` may be a bot, e.g. 'github-actions[bot]'.
  async comment(repo: string, number: number, body: string, by: string): Promise<number> {
    const { comment, sent } = createComment(
      this.core,
      this.repoOf(repo),
      this.issueOf(repo, number),
      body,
      this.core.account(by),
      null,
    );
    await settle(sent);
    return comment.id;
  }

  /** A comment written with the App's own installation token: by `<slug>[bot]`, via the App. */
  async commentAsApp(repo: string, number: number, body: string): Promise<number> {
    const { comment, sent } = createComment(
      this.core,
      this.repoOf(repo),
      this.issueOf(repo, number),
      body,
      this.core.app.bot,
      this.core.app,
    );
    await settle(sent);
    return comment.id;
  }

  async editComment(repo: string, commentId: number, body: string, by: string): Promise<void> {
    const r = this.repoOf(repo);
    const comment = r.comments.get(commentId);
    if (!comment) throw new Error(`github double: ${repo} has no comment ${commentId}`);
    await settle(editComment(this.core, r, comment, body, this.core.account(by)));
  }

  // Creates the head branch (with one commit) when it does not exist yet. The head is in `repo`,
  // in `by`'s fork (`fromFork`), or in `headRepo`, another repository of `repo`'s network (a PR in
  // a fork from its parent's branch).
  async openPr(
    repo: string,
    input: {
      head: string;
      base?: string;
      title: string;
      body?: string;
      by: string;
      fromFork?: boolean;
      headRepo?: string;
      draft?: boolean;
      files?: Record<string, string>;
    },
  ): Promise<number> {
    const base = this.repoOf(repo);
    const by = this.core.account(input.by);
    const headRepo = input.fromFork
      ? ensureFork(this.core, base, input.by)
      : input.headRepo
        ? this.repoOf(input.headRepo)
        : base;
    if (networkRoot(headRepo) !== networkRoot(base))
      throw new Error(`github double: ${headRepo.fullName} is not of ${repo}'s network`);
    const sent: Sent = [];
    if (!branchSha(headRepo, input.head)) {
      const files = input.files ?? {
        [`${input.head.replaceAll('/', '_')}.txt`]: `${input.title}\n`,
      };
      const parent = branchSha(base, input.base ?? base.defaultBranch);
      sent.push(
        ...pushCommit(this.core, headRepo, input.head, {
          message: input.title,
          files,
          by,
          ...(parent ? { parent } : {}),
        }).sent,
      );
    }
    await settle(sent);
    const opened = openPull(this.core, base, {
      headRepo,
      headRef: input.head,
      baseRef: input.base ?? base.defaultBranch,
      title: input.title,
      body: input.body ?? null,
      by,
      draft: input.draft ?? false,
    });
    await settle(opened.sent);
    return opened.pull.number;
  }

  // Pushes one commit; updates PRs whose head is the branch (pull_request.synchronize).
  async pushCommit(
    repo: string,
    branch: string,
    input: { message: string; files?: Record<string, string | null>; by: string; parent?: string },
  ): Promise<string> {
    const { sha, sent } = pushCommit(this.core, this.repoOf(repo), branch, {
      ...input,
      by: this.core.account(input.by),
    });
    await settle(sent);
    return sha;
  }

  /**
   * A person merges `from` (a branch or a commit) into `branch` on their machine and pushes
   * (`git merge`: nothing, a fast-forward, or a merge commit; a conflict throws). With `files`,
   * the merge commit changes them too, as one made with `git merge --no-commit` and an edit.
   * Returns the branch's head afterwards.
   */
  async mergeInto(
    repo: string,
    branch: string,
    from: string,
    by: string,
    files?: Record<string, string | null>,
  ): Promise<string> {
    const r = this.repoOf(repo);
    const { sha, sent } = pushMerge(
      this.core,
      r,
      branch,
      branchSha(r, from) ?? from,
      this.core.account(by),
      files,
    );
    await settle(sent);
    return sha;
  }

  // Someone else lands work on `branch`: open PRs on it fall behind (no conflict).
  async advanceBranch(repo: string, branch: string, by = 'someone-else'): Promise<string> {
    const file = `other/${Date.now()}-${Math.random().toString(36).slice(2, 8)}.txt`;
    return this.pushCommit(repo, branch, {
      message: `Unrelated change on ${branch}`,
      files: { [file]: 'x\n' },
      by,
    });
  }

  /**
   * A lightweight tag on `sha` (the default branch's head when left out), as `git push origin
   * <tag>` or a release makes it. No webhook: the App subscribes to no tag event.
   */
  async createTag(repo: string, tag: string, sha?: string): Promise<string> {
    const r = this.repoOf(repo);
    const target = sha ?? branchSha(r, r.defaultBranch);
    if (!target || !r.commits.has(target)) throw new Error(`github double: no commit ${target}`);
    if (r.refs.has(`tags/${tag}`)) throw new Error(`github double: tag ${tag} exists`);
    r.refs.set(`tags/${tag}`, target);
    return target;
  }

  async deleteBranch(repo: string, branch: string, by: string): Promise<void> {
    await settle(deleteBranch(this.core, this.repoOf(repo), branch, this.core.account(by)));
  }

  /**
   * A person submitting a review from the PR's "Files changed" tab; each of `comments` (on the
   * PR's diff, `side` RIGHT by default) opens a review thread. Throws what GitHub would refuse.
   */
  async review(
    repo: string,
    pr: number,
    input: { event: ReviewEvent; body?: string; by: string; comments?: DraftComment[] },
  ): Promise<number> {
    const { review, sent } = createReview(
      this.core,
      this.repoOf(repo),
      this.pullOf(repo, pr),
      this.core.account(input.by),
      {
        event: input.event,
        body: input.body ?? (input.event === 'APPROVE' ? '' : 'Please change this.'),
        ...(input.comments ? { comments: input.comments } : {}),
      },
    );
    await settle(sent);
    return review.id;
  }

  /**
   * A person dismissing review `reviewId` from the PR's merge box (the reason GitHub asks for is
   * not modelled); `pull_request_review.dismissed` follows. Throws what GitHub would refuse.
   */
  async dismissReview(repo: string, pr: number, reviewId: number, by: string): Promise<void> {
    const { sent } = dismissReview(
      this.core,
      this.repoOf(repo),
      this.pullOf(repo, pr),
      reviewId,
      this.core.account(by),
    );
    await settle(sent);
  }

  /** A reply in the thread of review comment `commentId`; returns the reply's id. */
  async replyToReviewComment(
    repo: string,
    pr: number,
    commentId: number,
    body: string,
    by: string,
  ): Promise<number> {
    const { comment, sent } = replyToReviewComment(
      this.core,
      this.repoOf(repo),
      this.pullOf(repo, pr),
      commentId,
      this.core.account(by),
      body,
    );
    await settle(sent);
    return comment.id;
  }

  /** Review comment `commentId` edited to `body` by `by` (its author, or a person with write access). */
  async editReviewComment(
    repo: string,
    pr: number,
    commentId: number,
    body: string,
    by: string,
  ): Promise<void> {
    await settle(this.changeReviewComment(repo, pr, commentId, body, by));
  }

  /** Review comment `commentId` deleted by `by` (its author, or a person with write access). */
  async deleteReviewComment(
    repo: string,
    pr: number,
    commentId: number,
    by: string,
  ): Promise<void> {
    await settle(this.changeReviewComment(repo, pr, commentId, null, by));
  }

  private changeReviewComment(
    repo: string,
    pr: number,
    commentId: number,
    body: string | null,
    by: string,
  ) {
    const r = this.repoOf(repo);
    return changeReviewComment(
      this.core,
      r,
      this.pullOf(repo, pr),
      commentId,
      body,
      this.core.account(by),
    );
  }

  /** "Resolve conversation" (or "Unresolve" with `resolved: false`) on a thread, by its node id. */
  async resolveReviewThread(
    repo: string,
    pr: number,
    threadId: string,
    by: string,
    resolved = true,
  ): Promise<void> {
    const thread = this.pullOf(repo, pr).threads.find((t) => t.id === threadId);
    if (!thread) throw new Error(`github double: ${repo}#${pr} has no review thread ${threadId}`);
    resolveThread(thread, resolved ? this.core.account(by) : null);
    this.core.changed('review-thread', { repo, id: threadId });
  }

  async requestReviewers(repo: string, pr: number, logins: string[], by: string): Promise<void> {
    await settle(
      requestReviewers(
        this.core,
        this.repoOf(repo),
        this.pullOf(repo, pr),
        logins,
        this.core.account(by),
      ),
    );
  }

  approvePr(repo: string, pr: number, by: string): Promise<number> {
    return this.review(repo, pr, { event: 'APPROVE', by });
  }

  async mergePrByHand(
    repo: string,
    pr: number,
    by: string,
    method: MergeMethod = 'merge',
  ): Promise<string> {
    const { sha, sent } = mergePull(
      this.core,
      this.repoOf(repo),
      this.pullOf(repo, pr),
      this.core.account(by),
      { method },
    );
    await settle(sent);
    return sha;
  }

  async closePr(repo: string, pr: number, by: string): Promise<void> {
    const pull = this.pullOf(repo, pr);
    await settle(
      editIssue(
        this.core,
        this.repoOf(repo),
        pull.issue,
        { state: 'closed' },
        this.core.account(by),
      ),
    );
  }

  async reopenPr(repo: string, pr: number, by: string): Promise<void> {
    const pull = this.pullOf(repo, pr);
    await settle(
      editIssue(this.core, this.repoOf(repo), pull.issue, { state: 'open' }, this.core.account(by)),
    );
  }

  /**
   * A check of another CI service's App (`other-ci`, with no workflow run behind it) on `sha`;
   * an unfinished check of that name is updated. `details` sets its output and annotations, as a
   * CI app writes them (use `runCi` for a check that is a GitHub Actions job).
   */
  async setCheck(
    repo: string,
    sha: string,
    name: string,
    status: CheckStatus,
    conclusion?: CheckConclusion,
    details: { output?: Partial<CheckOutput>; annotations?: JobAnnotation[] } = {},
  ): Promise<number> {
    const r = this.repoOf(repo);
    const resolved = branchSha(r, sha) ?? sha;
    const open = checkRunsOn(r, resolved).find(
      (c) => c.name === name && c.app === this.core.otherCiApp && c.status !== 'completed',
    );
    const input = {
      name,
      status,
      ...(conclusion ? { conclusion } : {}),
      ...(details.output ? { output: details.output } : {}),
    };
    if (open) {
      open.annotations.push(...(details.annotations ?? []));
      await settle(updateCheckRun(this.core, r, open, input));
      return open.id;
    }
    const { run, sent } = createCheckRun(this.core, r, this.core.otherCiApp, resolved, input);
    run.annotations.push(...(details.annotations ?? []));
    await settle(sent);
    return run.id;
  }

  /**
   * A GitHub Actions CI run on `sha` (a branch name or a sha) that GitHub started for a push or
   * pull request: each job is a check run of GitHub Actions with the job's id, details_url the
   * job's page. Each job's `attempts` say what the first attempt and each re-run does (the last
   * repeats). Resolves once the first attempt has completed, unless `play: false` leaves it queued
   * or the attempt says `hold` (then `releaseCi` plays it, as it plays a held re-run).
   */
  async runCi(
    repo: string,
    sha: string,
    input: {
      jobs: CiJobPlan[];
      workflow?: { file: string; name: string };
      event?: 'push' | 'pull_request';
      by?: string;
      play?: boolean;
    },
  ): Promise<number> {
    const r = this.repoOf(repo);
    const resolved = branchSha(r, sha) ?? sha;
    const branch =
      [...r.refs].find(([ref, s]) => s === resolved && ref.startsWith('heads/'))?.[0].slice(6) ??
      r.defaultBranch;
    const { run, sent } = createCiRun(this.core, r, {
      workflow: input.workflow ?? { file: 'ci.yml', name: 'CI' },
      event: input.event ?? 'pull_request',
      branch,
      sha: resolved,
      jobs: input.jobs,
      // GitHub's `actor` of a push or a PR's synchronize is who pushed the head: by default the
      // account the commit is attributed to.
      by: input.by
        ? this.core.account(input.by)
        : (r.commits.get(resolved)?.author ?? this.core.account('someone')),
    });
    await settle(sent);
    if (input.play !== false) await playOrHoldCiAttempt(this.core, run, settle);
    return run.id;
  }

  /**
   * From now on every new head of a PR into `repo` (opened, pushed, updated with its base) gets a
   * CI run of these jobs, held until `releaseCi` plays it: its checks are pending meanwhile. A
   * fork's PR gets one too, in `repo`, on the fork's head: of `fromForks` when given (the fork
   * changed the workflow, which its PR's merge commit carries).
   */
  pullRequestCi(repo: string, jobs: CiJobPlan[], options: { fromForks?: CiJobPlan[] } = {}): void {
    this.core.pullRequestCi.set(this.repoOf(repo).fullName.toLowerCase(), {
      jobs,
      fromForks: options.fromForks ?? jobs,
    });
  }

  /**
   * The PRs whose branch update waits for `releaseBranchUpdates`: an update-branch answered 202,
   * or a merge into the branch (`POST /merges`) not answered yet.
   */
  heldBranchUpdates(repo: string): number[] {
    const name = this.repoOf(repo).fullName;
    return this.core.heldBranchUpdates.filter((u) => u.repo === name).map((u) => u.number);
  }

  /**
   * GitHub carries out the held updates, oldest first: an update-branch merges the base into the
   * head it was asked for, or does nothing when that head moved meanwhile (landBranchUpdate); a
   * merge into a branch merges into the branch as it is now, and is answered (once `answerAfter`
   * settles: its webhooks come first). Resolves once their webhooks were answered, with the head
   * each update made (undefined: none).
   */
  async releaseBranchUpdates(
    options: { answerAfter?: Promise<void> } = {},
  ): Promise<Array<{ number: number; sha?: string }>> {
    const held = this.core.heldBranchUpdates.splice(0);
    const landed = held.map((update) => ({
      number: update.number,
      ...update.land(options.answerAfter),
    }));
    await settle(landed.flatMap((l) => l.sent));
    return landed.map(({ number, sha }) => (sha === undefined ? { number } : { number, sha }));
  }

  /** Whether the CI run's current attempt is held (its plan says `hold`) and not yet released. */
  ciHeld(runId: number): boolean {
    return this.core.heldCiRuns.has(runId);
  }

  /** Plays the held attempt of a CI run, as its plan says; resolves once it has completed. */
  async releaseCi(runId: number): Promise<void> {
    const run = this.runOf(runId);
    if (!this.core.heldCiRuns.delete(runId))
      throw new Error(`github double: CI run ${runId} has no held attempt`);
    await playCiAttempt(this.core, run, settle);
  }

  /** A person clicking "Re-run failed jobs": the new attempt plays as the CI run's plan says. */
  async rerunFailedJobs(runId: number, by: string): Promise<void> {
    const run = this.runOf(runId);
    await settle(rerunFailedJobs(this.core, run, this.core.account(by)));
    await this.core.webhooks.onRerun(runId);
  }

  /** The jobs of a run, every attempt's, as `GET .../runs/{id}/jobs?filter=all` lists them. */
  jobsOf(
    runId: number,
  ): { id: number; name: string; runAttempt: number; conclusion: string | null }[] {
    return this.runOf(runId).jobs.map((j) => ({
      id: j.id,
      name: j.name,
      runAttempt: j.runAttempt,
      conclusion: j.conclusion,
    }));
  }

  async setStatus(
    repo: string,
    sha: string,
    context: string,
    state: StatusState,
    by = 'ci-bot',
  ): Promise<void> {
    const r = this.repoOf(repo);
    const { sent } = createStatus(
      this.core,
      r,
      branchSha(r, sha) ?? sha,
      { state, context },
      this.core.account(by),
    );
    await settle(sent);
  }

  // Mergeability changes send no webhook on GitHub either.
  async setConflict(repo: string, pr: number, conflicted: boolean): Promise<void> {
    this.pullOf(repo, pr).forcedConflict = conflicted;
    this.core.changed('conflict', { repo, pr, conflicted });
  }

  /** The repository setting "Automatically delete head branches" (`delete_branch_on_merge`). */
  setDeleteBranchOnMerge(repo: string, on: boolean): void {
    this.repoOf(repo).deleteBranchOnMerge = on;
  }

  async enableMergeQueue(repo: string, branch: string): Promise<void> {
    enableMergeQueue(this.core, this.repoOf(repo), branch);
  }

  /** A person removes the PR from its merge queue (the UI's "Remove from queue"): reason MANUAL. */
  async removeFromMergeQueue(repo: string, pr: number, by: string): Promise<void> {
    await settle(
      dequeue(this.core, this.repoOf(repo), this.pullOf(repo, pr), this.core.account(by)),
    );
  }

  // Resolves when the group has landed or been dequeued (waits for required checks).
  async processMergeQueue(
    repo: string,
    branch?: string,
    options: { batch?: number; timeoutMs?: number } = {},
  ): Promise<QueueRunResult> {
    const r = this.repoOf(repo);
    const { result, sent } = await processMergeQueue(
      this.core,
      r,
      branch ?? r.defaultBranch,
      options,
    );
    await settle(sent);
    return result;
  }

  async startWorkflowRun(runId: number): Promise<void> {
    await settle(startRun(this.core, this.runOf(runId)));
  }

  async completeWorkflowRun(runId: number, conclusion: RunConclusion): Promise<void> {
    await settle(completeRun(this.core, this.runOf(runId), conclusion));
  }

  /**
   * Annotations on the job check run of a running workflow run, as its `::error::` (and
   * `::warning::`, `::notice::`) commands make them.
   */
  annotateJob(runId: number, annotations: JobAnnotation[], jobName?: string): void {
    annotateJob(this.runOf(runId), annotations, jobName);
  }

  /** A step of a running job printing `lines`: a section of the job's log. */
  logJob(runId: number, step: JobLogStep, jobName?: string): void {
    logJobStep(this.runOf(runId), step, jobName);
  }

  /** The runner's record of a job's steps (test/github-double/worker/actions-runner.ts). */
  recordJobLog(runId: number, steps: JobLogStep[], jobName?: string): void {
    const run = this.runOf(runId);
    for (const step of steps) logJobStep(run, step, jobName ?? currentJobs(run)[0]?.name);
  }

  /** A runner picked up the workflow's jobs (by their ids in the file): each is in progress. */
  async startJobs(runId: number, names: readonly string[]): Promise<void> {
    await settle(startJobs(this.core, this.runOf(runId), names));
  }

  /** The runner has the run's jobs in hand: a cancel of the run calls `stop` (actions-runner.ts). */
  holdRun(runId: number, stop: () => void): () => void {
    this.core.runnerStops.set(runId, stop);
    return () => this.core.runnerStops.delete(runId);
  }

  /** A job of a running run ends; the run ends when the runner says (completeWorkflowRun). */
  async finishJob(runId: number, name: string, conclusion: RunConclusion): Promise<void> {
    await settle(finishNamedJob(this.core, this.runOf(runId), name, conclusion));
  }

  /** The environment GitHub gives a JavaScript action step in workflow run `runId`. */
  actionsEnv(runId: number, options: ActionsEnvOptions = {}): Promise<Record<string, string>> {
    return actionsEnv(this.core, this.oidc, this.runOf(runId), options);
  }

  /** The run's GITHUB_TOKEN (default: the workflow's `permissions:`, else contents: read). */
  jobToken(runId: number, permissions?: Record<string, PermissionLevel>, job?: string): string {
    return jobToken(this.core, this.runOf(runId), permissions, job);
  }

  // Plays a scripted outcome on a run the worker left alone ('manual').
  async playWorker(runId: number, outcome: WorkerOutcome): Promise<void> {
    await this.worker.play(this.runOf(runId), outcome);
  }

  // `null` leaves dispatched runs queued for the test to drive.
  setWorker(policy: WorkerPolicy | null, options: { workflow?: string } = {}): void {
    this.worker.policy = policy;
    if (options.workflow) this.worker.workflow = options.workflow;
  }

  private issueOf(repo: string, number: number) {
    const issue = this.repoOf(repo).issues.get(number);
    if (!issue) throw new Error(`github double: ${repo} has no issue #${number}`);
    return issue;
  }

  private runOf(runId: number) {
    const run = findRun(this.core, runId);
    if (!run) throw new Error(`github double: no workflow run ${runId}`);
    return run;
  }
}
