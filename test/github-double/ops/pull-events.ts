import type { Core } from '../core.js';
import type { Account, Pull, Repo } from '../model.js';
import { pullJson } from '../render/pulls.js';

export type Sent = Promise<unknown>[];

export function sendPullEvent(
  core: Core,
  repo: Repo,
  pull: Pull,
  action: string,
  sender: Account,
  extra: Record<string, unknown> = {},
): Promise<unknown> {
  return core.webhooks.sendWebhook({
    event: 'pull_request',
    action,
    repo,
    sender,
    body: { number: pull.number, ...extra, pull_request: pullJson(core, repo, pull) },
  });
}

// Every PR by its head repository and branch (neither changes once opened): every branch move
// looks its PRs up, and scanning every repository's PRs made each push cost the whole fleet.
const byHead = new WeakMap<Repo, Map<string, { repo: Repo; pull: Pull }[]>>();

export function recordPullHead(repo: Repo, pull: Pull): void {
  let branches = byHead.get(pull.headRepo);
  if (!branches) byHead.set(pull.headRepo, (branches = new Map()));
  const list = branches.get(pull.headRef);
  if (list) list.push({ repo, pull });
  else branches.set(pull.headRef, [{ repo, pull }]);
}

// Open PRs, in any repository, whose head is `branch` of `headRepo`: repositories in the order
// they were created, each one's PRs by number.
export function openPullsWithHead(
  core: Core,
  headRepo: Repo,
  branch: string,
): { repo: Repo; pull: Pull }[] {
  const out = (byHead.get(headRepo)?.get(branch) ?? []).filter(
    ({ repo, pull }) =>
      pull.issue.state === 'open' &&
      repo.pulls.get(pull.number) === pull &&
      core.findRepo(repo.fullName) === repo,
  );
  if (new Set(out.map((o) => o.repo)).size > 1) {
    const order = new Map([...core.repos.values()].map((r, i) => [r, i]));
    out.sort((x, y) => order.get(x.repo)! - order.get(y.repo)! || x.pull.number - y.pull.number);
  }
  return out;
}
