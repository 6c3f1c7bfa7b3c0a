/** Where things live on GitHub (or GitHub Enterprise, or the test double) and on the dashboard. */
export class Links {
  /** `webUrl`: GitHub's web root, e.g. https://github.com or http://ghe.example. */
  constructor(private readonly webUrl: string) {}

  /** The web root for an API base URL (`<proto>://<host>/api/v3` → `<proto>://<host>`). */
  static fromApiBaseUrl(apiBaseUrl: string | undefined): Links {
    if (!apiBaseUrl) return new Links('https://github.com');
    return new Links(apiBaseUrl.replace(/\/api\/v3\/?$/, '').replace(/\/$/, ''));
  }

  repo(owner: string, name: string): string {
    return `${this.webUrl}/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  }

  issue(owner: string, name: string, number: number): string {
    return `${this.repo(owner, name)}/issues/${number}`;
  }

  pull(owner: string, name: string, number: number): string {
    return `${this.repo(owner, name)}/pull/${number}`;
  }

  /** A person's profile, or a bot's App page (`github-actions[bot]` → /apps/github-actions). */
  user(login: string): string {
    const bot = /^(.+)\[bot\]$/.exec(login);
    return bot
      ? `${this.webUrl}/apps/${encodeURIComponent(bot[1]!)}`
      : `${this.webUrl}/${encodeURIComponent(login)}`;
  }

  static runPage(runId: number): string {
    return `/dashboard/runs/${runId}`;
  }
}
