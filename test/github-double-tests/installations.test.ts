import { Octokit } from '@octokit/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appOctokit,
  expectClean,
  installationOctokit,
  startWorld,
  stopWorld,
  type World,
} from './helpers.js';

function tokenOctokit(w: World, token: string): Octokit {
  return new Octokit({
    baseUrl: w.double.apiUrl,
    auth: token,
    request: { retries: 0 },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

/**
 * What an installation's owner does to it (ops/installations.ts): the events GitHub sends every
 * App, checked against GitHub's schemas by the double's self-check, and what the App's tokens get
 * after.
 */
describe('github double: installation events', () => {
  let w: World;
  // Subscribed to nothing: installation events reach every App all the same.
  beforeEach(async () => {
    w = await startWorld({ subscribedEvents: ['issues'] });
    await w.double.createRepo({ owner: 'acme', name: 'gadgets' });
  });
  afterEach(async () => {
    await stopWorld(w);
    expectClean(w.double);
  });

  const mint = async () => {
    const { data } = await appOctokit(w.double).request(
      'POST /app/installations/{installation_id}/access_tokens',
      { installation_id: w.installationId },
    );
    return tokenOctokit(w, data.token);
  };
  const readRepo = (o: Octokit, name: string) =>
    o.request('GET /repos/{owner}/{repo}', { owner: 'acme', repo: name });

  it('takes a repository out of the installation and gives it back, sending each change', async () => {
    const token = await mint();
    await w.double.removeFromInstallation('acme/widgets', 'acme');
    const [removed] = w.receiver.of('installation_repositories', 'removed');
    expect(removed?.payload).toMatchObject({
      installation: { id: w.installationId, repository_selection: 'selected' },
      repository_selection: 'selected',
      repositories_added: [],
      repositories_removed: [{ full_name: 'acme/widgets' }],
    });
    // The token, and one minted now, reach the repository no more, as any outside theirs.
    await expect(readRepo(token, 'widgets')).rejects.toMatchObject({ status: 404 });
    await expect(readRepo(await mint(), 'widgets')).rejects.toMatchObject({ status: 404 });
    await expect(readRepo(token, 'gadgets')).resolves.toMatchObject({ status: 200 });
    // Nothing of the repository is delivered any more.
    await w.double.openIssue('acme/widgets', { title: 'Unheard', user: 'alice' });
    expect(w.receiver.of('issues', 'opened')).toEqual([]);

    await w.double.addToInstallation('acme/widgets', 'acme');
    expect(w.receiver.of('installation_repositories', 'added')[0]?.payload).toMatchObject({
      repository_selection: 'all',
      repositories_added: [{ full_name: 'acme/widgets' }],
    });
    await expect(readRepo(token, 'widgets')).resolves.toMatchObject({ status: 200 });
  });

  it('uninstalls: the installation’s tokens answer 401 and no new one is minted', async () => {
    const token = await mint();
    await w.double.uninstall('acme', 'acme');
    expect(w.receiver.of('installation', 'deleted')[0]?.payload).toMatchObject({
      installation: { id: w.installationId },
      repositories: [{ full_name: 'acme/widgets' }, { full_name: 'acme/gadgets' }],
    });
    await expect(readRepo(token, 'gadgets')).rejects.toMatchObject({ status: 401 });
    await expect(mint()).rejects.toMatchObject({ status: 404 });

    await w.double.install('acme', 'acme');
    const created = w.receiver.of('installation', 'created')[0]?.payload as {
      installation: { id: number };
    };
    expect(created.installation.id).not.toBe(w.installationId);
    const again = installationOctokit(w.double, created.installation.id);
    await expect(
      again.request('GET /repos/{owner}/{repo}', { owner: 'acme', repo: 'widgets' }),
    ).resolves.toMatchObject({ status: 200 });
  });

  it('suspends: tokens and token requests answer 403, and the repositories’ events stop', async () => {
    const token = await mint();
    await w.double.setInstallationSuspended('acme', true, 'acme');
    expect(w.receiver.of('installation', 'suspend')[0]?.payload).toMatchObject({
      installation: { id: w.installationId, suspended_by: { login: 'acme' } },
    });
    const suspended = {
      status: 403,
      response: { data: { message: 'This installation has been suspended' } },
    };
    await expect(readRepo(token, 'widgets')).rejects.toMatchObject(suspended);
    await expect(mint()).rejects.toMatchObject(suspended);
    await w.double.openIssue('acme/widgets', { title: 'Unheard', user: 'alice' });
    expect(w.receiver.of('issues', 'opened')).toEqual([]);

    await w.double.setInstallationSuspended('acme', false, 'acme');
    expect(w.receiver.of('installation', 'unsuspend')[0]?.payload).toMatchObject({
      installation: { suspended_at: null },
    });
    await expect(readRepo(token, 'widgets')).resolves.toMatchObject({ status: 200 });
  });
});
