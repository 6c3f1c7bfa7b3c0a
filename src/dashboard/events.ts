import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

export interface VersionSource {
  /** The current version of what a view shows; undefined when it no longer exists. */
  (): Promise<string | undefined>;
}

interface Watch {
  listeners: Set<(version: string | undefined) => void>;
  timer: NodeJS.Timeout;
  last: string | undefined;
  polling: boolean;
}

const HEARTBEAT_MS = 25_000;

/**
 * Live updates by polling the database: one poller per watched view, shared by every browser
 * looking at it, so a change made by any replica reaches every open page. A stream pushes
 * `event: change` when the version moves; the page then fetches its fragment.
 */
export class LiveUpdates {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly options: { pollMs: number; log: Logger }) {}

  /** Serve one Server-Sent Events stream for the view `key`. */
  async stream(
    req: IncomingMessage,
    res: ServerResponse,
    key: string,
    source: VersionSource,
    since: string | null,
  ): Promise<void> {
    const current = await source();
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');
    // The page was rendered at `since`: if it is stale already, say so at once.
    if (since !== null && current !== since) res.write(`event: change\ndata: \n\n`);

    const listener = () => res.write(`event: change\ndata: \n\n`);
    const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    this.subscribe(key, source, current, listener);
    const stop = () => {
      clearInterval(heartbeat);
      this.unsubscribe(key, listener);
    };
    req.on('close', stop);
    res.on('close', stop);
  }

  /** Stop every poller (the streams themselves end when the server closes their sockets). */
  close(): void {
    for (const watch of this.watches.values()) clearInterval(watch.timer);
    this.watches.clear();
  }

  private subscribe(
    key: string,
    source: VersionSource,
    current: string | undefined,
    listener: (version: string | undefined) => void,
  ): void {
    const known = this.watches.get(key);
    if (known) {
      known.listeners.add(listener);
      return;
    }
    const watch: Watch = {
      listeners: new Set([listener]),
      last: current,
      polling: false,
      timer: setInterval(() => void this.poll(watch, source), this.options.pollMs),
    };
    watch.timer.unref();
    this.watches.set(key, watch);
  }

  private unsubscribe(key: string, listener: (version: string | undefined) => void): void {
    const watch = this.watches.get(key);
    if (!watch) return;
    watch.listeners.delete(listener);
    if (watch.listeners.size > 0) return;
    clearInterval(watch.timer);
    this.watches.delete(key);
  }

  private async poll(watch: Watch, source: VersionSource): Promise<void> {
    if (watch.polling) return;
    watch.polling = true;
    try {
      const version = await source();
      if (version === watch.last) return;
      watch.last = version;
      for (const listener of watch.listeners) listener(version);
    } catch (error) {
      this.options.log.debug({ err: error }, 'dashboard: live update poll failed');
    } finally {
      watch.polling = false;
    }
  }
}
