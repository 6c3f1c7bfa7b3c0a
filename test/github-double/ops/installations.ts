import type { Core } from '../core.js';
import type { Account, Installation, Repo } from '../model.js';
import { installationJson } from '../render/accounts.js';
import type { Sent } from './pull-events.js';
import { ensureInstallation } from './repos.js';

/**
 * What an installation's owner does to it in the App's settings, with the events GitHub sends
 * (GitHub's "Webhook events and payloads": `installation` and `installation_repositories`, which
 * every App receives without subscribing). Once a repository leaves the installation, or the
 * installation is deleted, its tokens no longer reach the repository (404, as any repository
 * outside a token's installation) and its events go nowhere; a deleted installation's tokens
 * answer 401 and no new one is minted (404); a suspended one's answer 403 "This installation has
 * been suspended", as minting one does.
 */

/** A repository as the installation events list it. */
function listed(repo: Repo): Record<string, unknown> {
  return {
    id: repo.id,
    node_id: repo.nodeId,
    name: repo.name,
    full_name: repo.fullName,
    private: repo.private,
  };
}

function heldBy(core: Core, inst: Installation): Repo[] {
  return [...core.repos.values()].filter(
    (r) => r.owner === inst.account && !inst.removed.has(r.id),
  );
}

function installationOf(core: Core, owner: Account): Installation {
  const inst = core.installations.get(owner.login.toLowerCase());
  if (!inst) throw new Error(`github double: the App is not installed on ${owner.login}`);
  return inst;
}

function repositoriesEvent(
  core: Core,
  inst: Installation,
  action: 'added' | 'removed',
  repo: Repo,
  sender: Account,
): Sent {
  return [
    core.webhooks.sendWebhook({
      event: 'installation_repositories',
      action,
      repo: null,
      sender,
      body: {
        installation: installationJson(core, inst),
        repository_selection: inst.removed.size > 0 ? 'selected' : 'all',
        repositories_added: action === 'added' ? [listed(repo)] : [],
        repositories_removed: action === 'removed' ? [listed(repo)] : [],
        requester: null,
      },
    }),
  ];
}

/** The owner takes the repository out of the installation ("Only select repositories"). */
export function removeFromInstallation(core: Core, repo: Repo, sender: Account): Sent {
  const inst = installationOf(core, repo.owner);
  if (inst.removed.has(repo.id)) throw new Error(`github double: ${repo.fullName} is not in it`);
  inst.removed.add(repo.id);
  core.changed('installation', { installation: inst.id, removed: repo.fullName });
  return repositoriesEvent(core, inst, 'removed', repo, sender);
}

/** The owner gives the installation the repository again. */
export function addToInstallation(core: Core, repo: Repo, sender: Account): Sent {
  const inst = installationOf(core, repo.owner);
  if (!inst.removed.delete(repo.id)) throw new Error(`github double: ${repo.fullName} is in it`);
  core.changed('installation', { installation: inst.id, added: repo.fullName });
  return repositoriesEvent(core, inst, 'added', repo, sender);
}

/** The owner uninstalls the App: the installation and every token of it are gone. */
export function uninstall(core: Core, owner: Account, sender: Account): Sent {
  const inst = installationOf(core, owner);
  const body = {
    installation: installationJson(core, inst),
    repositories: heldBy(core, inst).map(listed),
  };
  core.installations.delete(owner.login.toLowerCase());
  for (const token of core.tokens.values())
    if (token.installationId === inst.id) token.expiresAt = new Date(0);
  core.changed('installation', { installation: inst.id, deleted: true });
  return [
    core.webhooks.sendWebhook({
      event: 'installation',
      action: 'deleted',
      repo: null,
      sender,
      body,
    }),
  ];
}

/** The owner suspends the installation, or lifts the suspension. */
export function setSuspended(
  core: Core,
  owner: Account,
  suspended: boolean,
  sender: Account,
): Sent {
  const inst = installationOf(core, owner);
  inst.suspendedAt = suspended ? core.now() : null;
  inst.suspendedBy = suspended ? sender : null;
  core.changed('installation', { installation: inst.id, suspended });
  return [
    core.webhooks.sendWebhook({
      event: 'installation',
      action: suspended ? 'suspend' : 'unsuspend',
      repo: null,
      sender,
      body: { installation: installationJson(core, inst) },
    }),
  ];
}

/** The App installed on the account again after an uninstall: a new installation, new id. */
export function install(core: Core, owner: Account, sender: Account): Sent {
  if (core.installations.has(owner.login.toLowerCase()))
    throw new Error(`github double: the App is installed on ${owner.login} already`);
  const inst = ensureInstallation(core, owner);
  return [
    core.webhooks.sendWebhook({
      event: 'installation',
      action: 'created',
      repo: null,
      sender,
      body: {
        installation: installationJson(core, inst),
        repositories: heldBy(core, inst).map(listed),
        requester: null,
      },
    }),
  ];
}
