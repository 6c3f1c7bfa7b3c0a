import type { Core } from '../core.js';
import { applyFiles, branchSha, compare, createCommit, isAncestor, threeWayMerge } from '../git.js';
import type { Account, Commit, GitIdent, Repo } from '../model.js';
import { repoHtmlUrl, repoApiUrl } from '../render/repos.js';
import { outdateThreads } from './review-threads.js';
import { startPullRequestCi } from './actions.js';
import { openPullsWithHead, sendPullEvent, type Sent } from './pull-events.js';

const ZERO = '0000000000000000000000000000000000000000';

function pushCommitJson(core: Core, repo: Repo, c: Commit): Record<string, unknown> {
  const parent = repo.commits.get(c.parents[0] ?? '');
  const before = parent?.tree ?? {};
  const paths = new Set([...Object.keys(before), ...Object.keys(c.tree)]);
  const added: string[] = [];
  const removed: string[] = [];
  const modified: string[] = [];
  for (const p of paths) {
    if (before[p] === undefined) added.push(p);
    else if (c.tree[p] === undefined) removed.push(p);
    else if (before[p] !== c.tree[p]) modified.push(p);
  }
  const who = (ident: GitIdent): Record<string, unknown> => ({
    name: ident.name,
    email: ident.email,
    username: c.author.login,
  });
  return {
    id: c.sha,
    tree_id: c.treeSha,
    distinct: true,
    message: c.message,
    timestamp: c.at,
    url: `${repoHtmlUrl(core, repo)}/commit/${c.sha}`,
    author: who(c.ident.author),
    committer: who(c.ident.committer),
    added,
    removed,
    modified,
  };
}

// Internal refs GitHub manages itself; they produce no push events.
function isQuiet(branch: string): boolean {
  return branch.startsWith('gh-readonly-queue/');
}

export function sendPush(
  core: Core,
  repo: Repo,
  branch: string,
  before: string | undefined,
  after: string | undefined,
  pusher: Account,
): Promise<unknown> {
  if (!core.delivers('push')) return Promise.resolve(null);
  const commits =
    after === undefined
      ? []
      : compare(repo, before ?? branchSha(repo, repo.defaultBranch) ?? after, after)
          .commits.map((s) => repo.commits.get(s))
          .filter((c): c is Commit => c !== undefined);
  const head = after === undefined ? undefined : repo.commits.get(after);
  return core.webhooks.sendWebhook({
    event: 'push',
    repo,
    sender: pusher,
    body: {
      ref: `refs/heads/${branch}`,
      before: before ?? ZERO,
      after: after ?? ZERO,
      created: before === undefined,
      deleted: after === undefined,
      forced: before !== undefined && after !== undefined && !isAncestor(repo, before, after),
      base_ref: null,
      compare: `${repoHtmlUrl(core, repo)}/compare/${(before ?? ZERO).slice(0, 12)}...${(after ?? ZERO).slice(0, 12)}`,
      commits: commits.map((c) => pushCommitJson(core, repo, c)),
      head_commit: head ? pushCommitJson(core, repo, head) : null,
      pusher: {
        name: pusher.login,
        email: `${pusher.id}+${pusher.login}@users.noreply.github.com`,
      },
    },
  });
}

// Every branch move goes through here so PR heads, webhooks and the merge queue stay in step.
export function moveBranch(
  core: Core,
  repo: Repo,
  branch: string,
  sha: string,
  pusher: Account,
): Sent {
  const before = branchSha(repo, branch);
  if (before === sha) return [];
  repo.refs.set(`heads/${branch}`, sha);
  repo.pushedAt = core.now();
  core.changed('ref', { repo: repo.fullName, branch, sha });
  if (isQuiet(branch)) return [];
  const sent: Sent = [sendPush(core, repo, branch, before, sha, pusher)];
  for (const pull of repo.pulls.values()) {
    if (pull.issue.state === 'open' && pull.baseRef === branch)
      pull.unknownReads = core.mergeabilityLag;
  }
  for (const { repo: baseRepo, pull } of openPullsWithHead(core, repo, branch)) {
    const previous = pull.headSha;
    pull.headSha = sha;
    outdateThreads(baseRepo, pull, sha);
    pull.unknownReads = core.mergeabilityLag;
    pull.issue.updatedAt = core.now();
    // A new head invalidates a merge queue entry, as on GitHub.
    const queue = baseRepo.mergeQueues.get(pull.baseRef);
    const entryIndex = queue?.entries.findIndex((e) => e.pull === pull) ?? -1;
    if (queue && entryIndex >= 0) {
      queue.entries.splice(entryIndex, 1);
      sent.push(
        sendPullEvent(core, baseRepo, pull, 'dequeued', pusher, {
          reason: 'UNKNOWN_REMOVAL_REASON',
        }),
      );
    }
    sent.push(
      ...startPullRequestCi(core, baseRepo, pull, pusher),
      sendPullEvent(core, baseRepo, pull, 'synchronize', pusher, { before: previous, after: sha }),
    );
  }
  return sent;
}

export function deleteBranch(core: Core, repo: Repo, branch: string, by: Account): Sent {
  const before = branchSha(repo, branch);
  if (before === undefined) return [];
  repo.refs.delete(`heads/${branch}`);
  core.changed('ref', { repo: repo.fullName, branch, sha: null });
  if (isQuiet(branch)) return [];
  const sent: Sent = [sendPush(core, repo, branch, before, undefined, by)];
  // GitHub closes open PRs whose head branch disappears.
  for (const { repo: baseRepo, pull } of openPullsWithHead(core, repo, branch)) {
    const now = core.now();
    pull.issue.state = 'closed';
    pull.issue.closedAt = now;
    pull.issue.updatedAt = now;
    pull.issue.closedBy = by;
    sent.push(sendPullEvent(core, baseRepo, pull, 'closed', by));
  }
  // And those whose base branch disappears: only a merge's own deletion of its head branch
  // (delete_branch_on_merge) retargets them first (cli/cli#14223).
  for (const pull of repo.pulls.values()) {
    if (pull.issue.state !== 'open' || pull.baseRef !== branch) continue;
    const now = core.now();
    pull.issue.state = 'closed';
    pull.issue.closedAt = now;
    pull.issue.updatedAt = now;
    pull.issue.closedBy = by;
    sent.push(sendPullEvent(core, repo, pull, 'closed', by));
  }
  return sent;
}

export interface PushInput {
  message: string;
  files?: Record<string, string | null>;
  by: Account;
  // Commit on top of this instead of the branch head (a force push when it is not a descendant).
  parent?: string;
}

export function pushCommit(
  core: Core,
  repo: Repo,
  branch: string,
  input: PushInput,
): { sha: string; sent: Sent } {
  const parent = input.parent ?? branchSha(repo, branch) ?? branchSha(repo, repo.defaultBranch);
  if (!parent)
    throw new Error(`github double: cannot find a parent for ${repo.fullName}@${branch}`);
  const parentCommit = repo.commits.get(parent);
  if (!parentCommit) throw new Error(`github double: unknown commit ${parent}`);
  const files = input.files ?? {
    [`changes/${branch.replaceAll('/', '_')}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.txt`]:
      input.message,
  };
  const c = createCommit(core, repo, {
    parents: [parent],
    message: input.message,
    tree: applyFiles(parentCommit.tree, files),
    author: input.by,
  });
  return { sha: c.sha, sent: moveBranch(core, repo, branch, c.sha, input.by) };
}

/**
 * `git merge <from> && git push` on `branch`, as a person does it on their machine: nothing to do
 * when the branch holds `from` already, a fast-forward when `from` holds the branch, otherwise a
 * merge commit whose parents are the branch's head and `from`. A conflict throws: git stops there
 * for the person to resolve it. `files`: changed in the merge commit too (`git merge --no-commit`,
 * an edit, then the commit), which makes one whatever the branch holds.
 */
export function pushMerge(
  core: Core,
  repo: Repo,
  branch: string,
  from: string,
  by: Account,
  files?: Readonly<Record<string, string | null>>,
): { sha: string; sent: Sent } {
  const head = branchSha(repo, branch);
  if (!head) throw new Error(`github double: no branch ${repo.fullName}@${branch}`);
  if (!repo.commits.has(from)) throw new Error(`github double: unknown commit ${from}`);
  if (!files && isAncestor(repo, from, head)) return { sha: head, sent: [] };
  if (!files && isAncestor(repo, head, from))
    return { sha: from, sent: moveBranch(core, repo, branch, from, by) };
  const merged = threeWayMerge(repo, head, from);
  if (!merged.ok)
    throw new Error(
      `github double: merging ${from} into ${branch} conflicts in ${merged.conflicts.join(', ')}`,
    );
  const c = createCommit(core, repo, {
    parents: [head, from],
    message: `Merge ${from} into ${branch}`,
    tree: files ? applyFiles(merged.tree, files) : merged.tree,
    author: by,
  });
  return { sha: c.sha, sent: moveBranch(core, repo, branch, c.sha, by) };
}

export function refJson(core: Core, repo: Repo, ref: string, sha: string): Record<string, unknown> {
  return {
    ref: `refs/${ref}`,
    node_id: `REF_${Buffer.from(`${repo.id}:${ref}`).toString('base64url')}`,
    url: `${repoApiUrl(core, repo)}/git/refs/${ref}`,
    object: { type: 'commit', sha, url: `${repoApiUrl(core, repo)}/git/commits/${sha}` },
  };
}
