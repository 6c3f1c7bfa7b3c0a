import { nothing, type NoEffect } from '../no-effect.js';

/**
 * An installation event that takes repositories from the App ends their runs for good
 * (docs/running.md, "Removing the App"). GitHub signs a delivery's body alone ("Validating webhook
 * deliveries"), not its `X-GitHub-Delivery` id nor its `X-GitHub-Event` header: a captured removal
 * can be sent again after the repository was given back, and any delivery whose action is
 * `deleted` or `suspend` (an issue comment deleted) reads as `installation.deleted` or
 * `installation.suspend` under another event header. So the event only says where to look: a
 * loss is recorded when GitHub, asked by the App itself, shows it now.
 */

/** What GitHub shows of an installation now (`GET /app/installations/{id}`); null when it has none. */
export type InstallationNow = { suspended: boolean } | null;

/** What an installation-wide event says: the App uninstalled, or the installation suspended. */
export type InstallationLoss = 'deleted' | 'suspend';

export type InstallationLossEffect =
  | NoEffect
  /** Every repository recorded under the installation is removed from the App. */
  | { kind: 'recordRemoved' }
  /** The installation and its repositories are suspended. */
  | { kind: 'recordSuspended' };

/**
 * The installation-wide event is recorded when GitHub shows it now: the installation gone
 * (uninstalled), or suspended. Otherwise it changes nothing: a replay, or another event's delivery.
 */
export function decideInstallationLoss(
  loss: InstallationLoss,
  now: InstallationNow,
): InstallationLossEffect[] {
  if (loss === 'deleted')
    return now === null
      ? [{ kind: 'recordRemoved' }]
      : nothing('GitHub shows the installation installed now');
  return now?.suspended === true
    ? [{ kind: 'recordSuspended' }]
    : nothing('GitHub does not show the installation suspended now');
}

/**
 * A repository a removal names, with the installation GitHub shows holding it now
 * (`GET /repos/{owner}/{repo}/installation`): null when none does.
 */
export interface RepositoryHolder {
  id: number;
  holder: number | null;
}

/**
 * Of the repositories a removal from `installationId` names, those GitHub shows outside it now:
 * held by no installation, or moved to another (a transfer). One the installation holds again was
 * given back since, or never left.
 */
export function repositoriesRemovedNow(
  installationId: number,
  holders: readonly RepositoryHolder[],
): number[] {
  return holders.filter((h) => h.holder !== installationId).map((h) => h.id);
}
