import type { EventEmitter } from 'node:events';

// Events that may make a waited-for condition true.
export const WAKE_EVENTS = [
  'state-change',
  'request',
  'webhook-sent',
  'webhook-answered',
  'violation',
  'deliveries-idle',
] as const;

// Re-evaluates `predicate` whenever the double reports something; the timeout is the only
// timer, and it only turns a hang into a readable failure.
export function waitUntil<T>(
  events: EventEmitter,
  predicate: () => T | false | null | undefined,
  options: { timeoutMs: number; description: string },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cleanup = (): void => {
      clearTimeout(timer);
      for (const e of WAKE_EVENTS) events.off(e, check);
    };
    function check(): void {
      let value: T | false | null | undefined;
      try {
        value = predicate();
      } catch (error) {
        cleanup();
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (value !== false && value !== null && value !== undefined) {
        cleanup();
        resolve(value);
      }
    }
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.description}`),
      );
    }, options.timeoutMs);
    for (const e of WAKE_EVENTS) events.on(e, check);
    check();
  });
}
