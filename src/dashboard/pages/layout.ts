import { DASHBOARD_SCRIPT } from '../client-script.js';
import { html, raw, type SafeHtml } from '../html.js';
import { DASHBOARD_CSS } from '../styles.js';

export interface ContentOptions {
  /** Changes whenever what the fragment shows changes (the events stream compares it). */
  version: string;
  /** The events stream for this view, e.g. `/dashboard/events?run=12`. */
  events: string;
  /** The URL answering only `#content`, fetched on each change. */
  fragment: string;
}

/** The live part of a page: swapped in place when the events stream says it changed. */
export function contentFragment(body: SafeHtml, options: ContentOptions): SafeHtml {
  return html`<main
    id="content"
    data-version="${options.version}"
    data-events="${options.events}"
    data-fragment="${options.fragment}"
  >
    ${body}
  </main>`;
}

export function pageShell(title: string, content: SafeHtml, nonce: string): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title}</title>
        <style nonce="${nonce}">
          ${raw(DASHBOARD_CSS)}
        </style>
      </head>
      <body data-live="off">
        <header>
          <a class="brand" href="/dashboard">agent-coordinator</a
          ><span class="muted">runs across repositories</span><span id="live">connecting…</span>
        </header>
        ${content}
        <script nonce="${nonce}">
          ${raw(DASHBOARD_SCRIPT)};
        </script>
      </body>
    </html>`;
}
