import type { Probot } from 'probot';

/**
 * The webhook events some handler is registered for (`issues` or `issues.labeled`), recorded as
 * the app registers them. A delivery no handler acts on (`workflow_job`, which the manifest
 * subscribes to but nothing handles yet; `check_run.created`) is stored as handled at ingest and
 * never claimed, decompressed or passed through Probot (docs/running.md, "Deliveries and
 * replicas").
 */
export class HandledEvents {
  private readonly names = new Set<string>();

  /** Every later `app.on` of this app is recorded here. */
  recordFrom(app: Probot): void {
    const on = app.on.bind(app);
    app.on = ((names: string | string[], handler: never) => {
      for (const name of [names].flat()) this.names.add(name);
      return on(names as never, handler);
    }) as typeof app.on;
  }

  actsOn(event: string, action: string | undefined): boolean {
    return this.names.has(event) || (action !== undefined && this.names.has(`${event}.${action}`));
  }
}
