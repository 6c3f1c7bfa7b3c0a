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

// Open PRs, in this repository, whose head is `branch` of `headRepo`.
export function openPullsWithHead(
  core: Core,
  headRepo: Repo,
  branch: string,
): { repo: Repo; pull: Pull }[] {
  const out: { repo: Repo; pull: Pull }[] = [];
  for (const repo of core.repos.values()) {
    for (const pull of repo.pulls.values()) {
      if (pull.issue.state === 'open' && pull.headRepo === headRepo && pull.headRef === branch)
        out.push({ repo, pull });
    }
  }
  return out;
}
