import type { ApplicationFunction } from 'probot';
import type { HandledEvents } from './webhooks/handled-events.js';
import { TriggerLabelCache } from './config/trigger-labels.js';
import { startRun } from './engine/start-run.js';
import { createOctokitPort } from './github/octokit-port.js';
import type { AppServices } from './handlers/app-services.js';
import { recordRepositoryFirst } from './handlers/repository-first.js';
import { registerCheckHandlers } from './handlers/checks.js';
import { registerCommentHandlers } from './handlers/comments.js';
import { registerInstallationHandlers } from './handlers/installation.js';
import { registerIssueHandlers } from './handlers/issues.js';
import { registerPullRequestHandlers } from './handlers/pull-requests.js';
import { registerWorkflowHandlers } from './handlers/workflows.js';

export type AppServiceInput = Omit<AppServices, 'port' | 'triggerLabels' | 'onRunRequested'> &
  Partial<Pick<AppServices, 'port' | 'triggerLabels' | 'onRunRequested'>>;

export function createApp(
  input: AppServiceInput,
  /** Told which events the handlers below register for (the ingest's filter). */
  handledEvents?: HandledEvents,
): ApplicationFunction {
  const { engine } = input;
  const services: AppServices = {
    port: (octokit) => createOctokitPort(octokit, { appId: input.appId }),
    triggerLabels: new TriggerLabelCache(),
    onRunRequested: async ({ context, config, port }) => {
      const { issue, repository, installation, sender } = context.payload;
      await startRun(engine, {
        port,
        repo: context.repo(),
        repositoryId: repository.id,
        installationId: installation!.id,
        defaultBranch: repository.default_branch,
        issue: { number: issue.number, title: issue.title, body: issue.body ?? null },
        startedBy: sender.login,
        config,
        triggerUpdatedAt: new Date(issue.updated_at),
      });
    },
    ...input,
  };
  return (app) => {
    handledEvents?.recordFrom(app);
    const handlers = recordRepositoryFirst(app, services);
    registerInstallationHandlers(handlers, services);
    registerIssueHandlers(handlers, services);
    registerWorkflowHandlers(handlers, services);
    registerPullRequestHandlers(handlers, services);
    registerCommentHandlers(handlers, services);
    registerCheckHandlers(handlers, services);
  };
}
