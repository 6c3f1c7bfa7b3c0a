import type { Probot } from 'probot';
import type { RepositoryStore } from '../store/repositories.js';
import type { AppServices } from './app-services.js';

/** What the handlers register with: Probot's `on`, through `recordRepositoryFirst`. */
export type HandlerRegistry = Pick<Probot, 'on'>;

/**
 * Every handler may look its delivery's repository up (its installation, whether it is
 * suspended, the installation's locks), so each one waits for the repository's record first.
 * Probot runs the handlers of a delivery side by side, an `onAny` among them: a record written by
 * one would race the others, and a handler that found no repository yet would act without it
 * (a refusal decided outside its installation's lock, answered over the budget). The record is
 * written once per delivery, whichever handler asks first.
 */
export function recordRepositoryFirst(
  app: Probot,
  services: Pick<AppServices, 'store'>,
): HandlerRegistry {
  const recorded = new WeakMap<object, Promise<void>>();
  const record = (payload: object): Promise<void> => {
    let done = recorded.get(payload);
    if (!done)
      recorded.set(payload, (done = recordRepositoryOf(services.store.repositories, payload)));
    return done;
  };
  const on = ((names: string | string[], handler: (context: { payload: object }) => unknown) =>
    app.on(names as never, async (context: { payload: object }) => {
      await record(context.payload);
      return handler(context);
    })) as Probot['on'];
  return { on };
}

async function recordRepositoryOf(repositories: RepositoryStore, payload: object): Promise<void> {
  const { installation, repository } = payload as {
    installation?: { id?: number };
    repository?: { id: number; name: string; owner: { login: string }; default_branch?: string };
  };
  if (!installation?.id || !repository) return;
  await repositories.ensureRepository(installation.id, {
    id: repository.id,
    owner: repository.owner.login,
    name: repository.name,
    defaultBranch: repository.default_branch,
  });
}
