import type { AppManifest } from './manifest.js';

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

export interface SetupPageInput {
  manifest: AppManifest;
  /** GitHub's "register a new App" URL, with our state parameter. */
  formAction: string;
  /** Set when the webhook URL was guessed from the page's own address. */
  guessedWebhookUrl: boolean;
}

/** The page a browser opens to register the App: one form GitHub's manifest flow receives. */
export function setupPage(input: SetupPageInput): string {
  const webhook = escapeHtml(input.manifest.hook_attributes.url);
  const guess = input.guessedWebhookUrl
    ? `<p><strong>GitHub must be able to reach this address.</strong> Set <code>PUBLIC_URL</code>
  (where the app is reachable) or <code>WEBHOOK_PROXY_URL</code> (a smee.io channel) and restart
  to register another one.</p>`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Register agent-coordinator on GitHub</title></head>
<body>
<h1>Register agent-coordinator on GitHub</h1>
<p>GitHub will create the App from this app's manifest (<code>app.yml</code>) and send its
webhooks to <code>${webhook}</code>.</p>
${guess}
<form action="${escapeHtml(input.formAction)}" method="post">
  <input type="hidden" name="manifest" value="${escapeHtml(JSON.stringify(input.manifest))}">
  <button type="submit">Register the GitHub App</button>
</form>
</body>
</html>
`;
}

export function messagePage(title: string, message: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body>
</html>
`;
}
