import type { Logger } from 'pino';

/**
 * The coordinator's public base URL: where GitHub and the Actions runners reach it, the
 * audience of the workers' OIDC tokens, and the `coordinator_url` every dispatch carries.
 * `PUBLIC_URL` when set; otherwise the origin of the App's own webhook URL, which
 * `GET /app/hook/config` answers (App JWT).
 */
export interface PublicUrl {
  /** The URL, or undefined while it cannot be worked out (nothing is dispatched then). */
  current(): Promise<string | undefined>;
}

export interface PublicUrlOptions {
  configured?: string;
  /** The App's webhook URL as GitHub holds it (`GET /app/hook/config`). */
  readWebhookUrl: () => Promise<string | undefined>;
  log: Pick<Logger, 'info' | 'error'>;
}

export function createPublicUrl(options: PublicUrlOptions): PublicUrl {
  if (options.configured) {
    const url = normalizePublicUrl(options.configured);
    return { current: async () => url };
  }
  let known: string | undefined;
  let reading: Promise<string | undefined> | undefined;
  let reportedFailure = false;
  // A failure is not remembered: the webhook URL is often set after the app starts (the setup
  // flow sets it to where the app runs), so the next dispatch or worker request asks again.
  // One read at a time, whoever asks.
  const read = async (): Promise<string | undefined> => {
    let problem: string;
    try {
      const webhookUrl = await options.readWebhookUrl();
      const origin = webhookUrl ? originOf(webhookUrl) : undefined;
      if (origin) {
        known = origin;
        options.log.info(
          { publicUrl: origin },
          "public URL taken from the App's webhook URL (GET /app/hook/config)",
        );
        return origin;
      }
      problem = webhookUrl
        ? "the App's webhook URL is not an http(s) URL"
        : 'the App has no webhook URL';
    } catch (error) {
      problem = `GET /app/hook/config failed: ${(error as Error).message}`;
    }
    if (!reportedFailure) {
      reportedFailure = true;
      options.log.error(
        { problem },
        "PUBLIC_URL is not set and cannot be worked out from the App's webhook URL: no worker is dispatched and /api/worker/assignment answers 503 until it can (set PUBLIC_URL)",
      );
    }
    return undefined;
  };
  return {
    async current() {
      if (known) return known;
      reading ??= read().finally(() => {
        reading = undefined;
      });
      return reading;
    },
  };
}

/** The URL as given, without a trailing slash, so `<url>/api/...` and the audience agree. */
export function normalizePublicUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}
