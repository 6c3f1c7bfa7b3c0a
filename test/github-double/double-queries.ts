import { DoubleBase } from './double-base.js';
import { branchSha, isAncestor as isAncestorOf, mergeBase } from './git.js';
import { checkRunsOn, statusesOn, type Pull, type Repo } from './model.js';
import { findRun } from './ops/actions.js';
import { mergeability, type Mergeability } from './ops/mergeability.js';
import { runJson } from './render/actions.js';
import { checkRunJson, statusJson } from './render/checks.js';
import { commentJson, issueJson } from './render/issues.js';
import { pullJson } from './render/pulls.js';
import { repoJson } from './render/repos.js';

type Json = Record<string, unknown>;

// Read-only views for assertions, in the JSON shapes GitHub's REST API answers with.
export class DoubleQueries extends DoubleBase {
  protected repoOf(fullName: string): Repo {
    return this.core.repo(fullName);
  }

  protected pullOf(fullName: string, number: number): Pull {
    const pull = this.repoOf(fullName).pulls.get(number);
    if (!pull) throw new Error(`github double: ${fullName} has no pull request #${number}`);
    return pull;
  }

  repository(fullName: string): Json {
    return repoJson(this.core, this.repoOf(fullName));
  }

  /** Every repository (`owner/name`) the double holds. */
  repositories(): string[] {
    return [...this.core.repos.values()].map((r) => r.fullName);
  }

  /** The App's installations: each one's id and the account it is on. */
  installations(): Array<{ id: number; account: string }> {
    return [...this.core.installations.values()].map((i) => ({
      id: i.id,
      account: i.account.login,
    }));
  }

  issue(fullName: string, number: number): Json | undefined {
    const repo = this.repoOf(fullName);
    const issue = repo.issues.get(number);
    return issue ? issueJson(this.core, repo, issue) : undefined;
  }

  labels(fullName: string, number: number): string[] {
    return (
      this.repoOf(fullName)
        .issues.get(number)
        ?.labels.map((l) => l.name) ?? []
    );
  }

  comments(fullName: string, number: number): Json[] {
    const repo = this.repoOf(fullName);
    return [...repo.comments.values()]
      .filter((c) => c.issueNumber === number)
      .sort((a, b) => a.id - b.id)
      .map((c) => ({
        ...commentJson(this.core, repo, c),
        reaction_contents: c.reactions.map((r) => `${r.user.login}:${r.content}`),
      }));
  }

  pulls(fullName: string): Json[] {
    const repo = this.repoOf(fullName);
    return [...repo.pulls.values()]
      .sort((a, b) => a.number - b.number)
      .map((p) => pullJson(this.core, repo, p));
  }

  pull(fullName: string, number: number): Json {
    return pullJson(this.core, this.repoOf(fullName), this.pullOf(fullName, number));
  }

  reviews(fullName: string, number: number): { user: string; state: string; commitId: string }[] {
    return this.pullOf(fullName, number).reviews.map((r) => ({
      user: r.user.login,
      state: r.state,
      commitId: r.commitId,
    }));
  }

  /** The PR's review threads, oldest first, with their comments (as the model holds them). */
  reviewThreads(
    fullName: string,
    number: number,
  ): {
    id: string;
    path: string;
    line: number | null;
    originalLine: number;
    isResolved: boolean;
    isOutdated: boolean;
    comments: { id: number; user: string; body: string; inReplyTo: number | null }[];
  }[] {
    return this.pullOf(fullName, number).threads.map((t) => ({
      id: t.id,
      path: t.path,
      line: t.outdated ? null : t.originalLine,
      originalLine: t.originalLine,
      isResolved: t.resolvedBy !== null,
      isOutdated: t.outdated,
      comments: t.comments.map((c) => ({
        id: c.id,
        user: c.user.login,
        body: c.body,
        inReplyTo: c.inReplyTo,
      })),
    }));
  }

  requestedReviewers(fullName: string, number: number): string[] {
    return this.pullOf(fullName, number).requestedReviewers.map((a) => a.login);
  }

  mergeabilityOf(fullName: string, number: number): Mergeability {
    return mergeability(this.core, this.repoOf(fullName), this.pullOf(fullName, number));
  }

  // Runs with the dispatch inputs GitHub keeps but does not show in the REST shape.
  runs(fullName: string): (Json & { inputs: Record<string, string> })[] {
    return [...this.repoOf(fullName).runs.values()]
      .sort((a, b) => a.id - b.id)
      .map((r) => ({ ...runJson(this.core, r), inputs: { ...r.inputs } }));
  }

  run(runId: number): (Json & { inputs: Record<string, string> }) | undefined {
    const r = findRun(this.core, runId);
    return r ? { ...runJson(this.core, r), inputs: { ...r.inputs } } : undefined;
  }

  checkRuns(fullName: string, sha: string): Json[] {
    const repo = this.repoOf(fullName);
    return [...checkRunsOn(repo, sha)]
      .sort((a, b) => a.id - b.id)
      .map((r) => checkRunJson(this.core, repo, r));
  }

  statuses(fullName: string, sha: string): Json[] {
    const repo = this.repoOf(fullName);
    return statusesOn(repo, sha).map((s) => statusJson(this.core, repo, s));
  }

  branch(fullName: string, name: string): { name: string; sha: string } | undefined {
    const sha = branchSha(this.repoOf(fullName), name);
    return sha ? { name, sha } : undefined;
  }

  branches(fullName: string): string[] {
    return [...this.repoOf(fullName).refs.keys()]
      .filter((r) => r.startsWith('heads/'))
      .map((r) => r.slice(6))
      .sort();
  }

  tags(fullName: string): string[] {
    return [...this.repoOf(fullName).refs.keys()]
      .filter((r) => r.startsWith('tags/'))
      .map((r) => r.slice(5))
      .sort();
  }

  file(fullName: string, ref: string, path: string): string | undefined {
    const repo = this.repoOf(fullName);
    const sha = branchSha(repo, ref) ?? ref;
    return repo.commits.get(sha)?.tree[path];
  }

  /**
   * The files a PR's "Files changed" shows, as GitHub computes it: its head against the merge
   * base of its base branch and its head (three dots), each path with what the head holds.
   */
  pullDiff(fullName: string, number: number): Record<string, string | null> {
    const repo = this.repoOf(fullName);
    const pull = repo.pulls.get(number);
    const baseSha = pull && branchSha(repo, pull.baseRef);
    if (!pull || !baseSha) return {};
    const fork = mergeBase(repo, baseSha, pull.headSha);
    const before = (fork && repo.commits.get(fork)?.tree) || {};
    const after = repo.commits.get(pull.headSha)?.tree ?? {};
    const diff: Record<string, string | null> = {};
    for (const path of new Set([...Object.keys(before), ...Object.keys(after)]))
      if (before[path] !== after[path]) diff[path] = after[path] ?? null;
    return diff;
  }

  /** Whether `sha` is `of` or one of its ancestors. */
  isAncestor(fullName: string, sha: string, of: string): boolean {
    return isAncestorOf(this.repoOf(fullName), sha, of);
  }

  commitMessage(fullName: string, sha: string): string | undefined {
    return this.repoOf(fullName).commits.get(sha)?.message;
  }

  commitParents(fullName: string, sha: string): string[] {
    return [...(this.repoOf(fullName).commits.get(sha)?.parents ?? [])];
  }

  mergeQueue(fullName: string, branch: string): number[] | undefined {
    return this.repoOf(fullName)
      .mergeQueues.get(branch)
      ?.entries.map((e) => e.pull.number);
  }
}
