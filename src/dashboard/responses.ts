import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { html, type SafeHtml } from './html.js';
import { contentFragment, pageShell, type ContentOptions } from './pages/layout.js';

function securityHeaders(nonce?: string): Record<string, string> {
  const scripts = nonce ? `'nonce-${nonce}'` : "'none'";
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'content-security-policy': [
      "default-src 'none'",
      `script-src ${scripts}`,
      `style-src ${scripts}`,
      "img-src 'self' data:",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  };
}

export function page(
  res: ServerResponse,
  title: string,
  body: SafeHtml,
  fragmentOnly: boolean,
  content: ContentOptions,
): void {
  const main = contentFragment(body, content);
  if (fragmentOnly) {
    res.writeHead(200, securityHeaders()).end(main.value);
    return;
  }
  const nonce = randomBytes(16).toString('base64');
  res.writeHead(200, securityHeaders(nonce)).end(pageShell(title, main, nonce).value);
}

export function unauthorized(res: ServerResponse): void {
  res
    .writeHead(401, {
      ...securityHeaders(),
      'www-authenticate': 'Bearer realm="agent-coordinator dashboard"',
    })
    .end(
      html`<!doctype html><title>401 · agent-coordinator</title>
        <h1>401 Unauthorized</h1>
        <p>
          Open <code>/dashboard?token=…</code> with the DASHBOARD_TOKEN once, or send
          <code>Authorization: Bearer …</code>.
        </p>`.value,
    );
}

export function notFound(res: ServerResponse): void {
  res.writeHead(404, securityHeaders()).end(
    html`<!doctype html><title>404 · agent-coordinator</title>
      <h1>Not found</h1>
      <p><a href="/dashboard">All runs</a></p>`.value,
  );
}
