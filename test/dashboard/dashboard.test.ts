import { afterEach, describe, expect, it } from 'vitest';
import { EnvError, parseEnv } from '../../src/env.js';
import {
  MAINTAINER,
  REPO,
  SPEC_EXAMPLE_PLAN,
  startScenario,
  type Scenario,
} from '../e2e/harness.js';

const TOKEN = 'dashboard-test-token-0123456789abcdef';

/** The dashboard over plain HTTP: who may see it, what it shows, and that text stays text. */
describe('dashboard over HTTP', () => {
  let s: Scenario | undefined;
  afterEach(async () => {
    try {
      s?.double.assertNoViolations();
    } finally {
      await s?.close();
      s = undefined;
    }
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${s!.app.url}${path}`, { headers, redirect: 'manual' });
  const bearer = { authorization: `Bearer ${TOKEN}` };

  const startRun = async (title: string, body: string, repo = REPO) => {
    const issue = await s!.double.openIssue(repo, { title, body, user: MAINTAINER });
    await s!.double.addLabel(repo, issue, 'agent', MAINTAINER);
    await s!.settle();
    return issue;
  };

  it('does not exist without DASHBOARD_TOKEN', async () => {
    s = await startScenario();
    for (const path of ['/dashboard', '/dashboard/', '/dashboard/runs/1', '/dashboard/events'])
      expect((await get(path, bearer)).status).toBe(404);
  });

  it('answers only requests carrying the token, then a strict HttpOnly cookie', async () => {
    s = await startScenario({ env: { DASHBOARD_TOKEN: TOKEN } });
    const denied = await get('/dashboard');
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await get('/dashboard', { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await get('/dashboard', { authorization: 'Bearer short' })).status).toBe(401);
    expect((await get(`/dashboard?token=${TOKEN.slice(1)}`)).status).toBe(401);
    expect((await get('/dashboard/events')).status).toBe(401);
    expect((await get('/dashboard/runs/1')).status).toBe(401);
    expect((await get('/dashboard', { cookie: 'ac_dashboard=forged' })).status).toBe(401);
    // The cookie holds a value derived from the token, never the token itself.
    expect((await get('/dashboard', { cookie: `ac_dashboard=${TOKEN}` })).status).toBe(401);

    const ok = await get('/dashboard', bearer);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(ok.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(ok.headers.get('cache-control')).toBe('no-store');

    const login = await get(`/dashboard/runs/7?token=${TOKEN}&x=1`);
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/dashboard/runs/7?x=1');
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^ac_dashboard=[\w-]+; Path=\/dashboard; HttpOnly; SameSite=Strict/);
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(';')[0]!;
    expect((await get('/dashboard', { cookie: session })).status).toBe(200);
    expect((await get('/dashboard/runs/7', { cookie: session })).status).toBe(404);
    expect((await get('/dashboard/nowhere', { cookie: session })).status).toBe(404);
    const post = await fetch(`${s.app.url}/dashboard`, { method: 'POST', headers: bearer });
    expect(post.status).toBe(405);
    // The rest of the app is untouched by the prefix route.
    expect((await get('/dashboardx', bearer)).status).toBe(404);
    expect((await get('/healthz')).status).toBe(200);
  });

  it('lists runs across repositories with state, spend and age', async () => {
    s = await startScenario({ env: { DASHBOARD_TOKEN: TOKEN } });
    s.double.setWorker(() => ({ kind: 'pr', costUsd: 1.25 }));
    await s.double.createRepo({ owner: 'octo-org', name: 'gadgets' });
    await s.double.setPermission('octo-org/gadgets', MAINTAINER, 'maintain');
    await startRun('Login', `Add login.\n\n${SPEC_EXAMPLE_PLAN}`);
    await startRun(
      'Broken plan',
      '```tasks\n- id: a\n  title: A\n  deps: [b]\n```',
      'octo-org/gadgets',
    );

    const text = await (await get('/dashboard', bearer)).text();
    const rows = [...text.matchAll(/<tr data-run="(\d+)">([\s\S]*?)<\/tr>/g)].map((m) => m[2]!);
    expect(rows).toHaveLength(2);
    const widgets = rows.find((r) => r.includes('octo-org/widgets'))!;
    const gadgets = rows.find((r) => r.includes('octo-org/gadgets'))!;
    expect(widgets).toContain('data-run-state="running"');
    expect(widgets).toContain('$1.25 / $20.00');
    expect(widgets).toMatch(/\d+s so far/);
    expect(gadgets).toContain('data-run-state="plan_invalid"');
    expect(gadgets).toContain('$0.00 / $20.00');

    // The run page of the invalid plan shows the validation error.
    const runId = /<tr data-run="(\d+)">(?:(?!<\/tr>)[\s\S])*octo-org\/gadgets/.exec(text)![1];
    const page = await (await get(`/dashboard/runs/${runId}`, bearer)).text();
    expect(page).toContain('Plan error');
    expect(page).toContain('which is not a task in this plan');
  });

  it('shows how many tasks of a run wait for a worker slot (not on /metrics, which names no repository)', async () => {
    s = await startScenario({
      env: { DASHBOARD_TOKEN: TOKEN },
      config: 'concurrency:\n  maxParallel: 1\n',
    });
    s.double.setWorker(() => ({ kind: 'manual' }));
    await startRun(
      'Three at once',
      '```tasks\n- id: a\n  title: A\n- id: b\n  title: B\n- id: c\n  title: C\n```',
    );
    const text = await (await get('/dashboard', bearer)).text();
    const row = /<tr data-run="\d+">([\s\S]*?)<\/tr>/.exec(text)![1]!;
    expect(row).toContain('octo-org/widgets');
    // One in flight, the other two ready behind the limit of one.
    expect(row).toMatch(/\(2 ready\)/);
  });

  it('escapes every untrusted string: issue title, task titles, command text, reasons', async () => {
    s = await startScenario({ env: { DASHBOARD_TOKEN: TOKEN } });
    s.double.setWorker(() => ({ kind: 'pr' }));
    await s.double.setPermission(REPO, 'visitor', 'read');
    const plan = [
      '```tasks',
      '- id: evil',
      `  title: "<script>alert('title')</script> & \\"quoted\\""`,
      '```',
    ].join('\n');
    const issue = await startRun('<img src=x onerror=alert(1)>', plan);
    await s.double.comment(REPO, issue, '/veto evil <svg onload=alert(2)>', MAINTAINER);
    await s.double.comment(REPO, issue, '/hold \'"><iframe src=javascript:alert(3)>', 'visitor');
    await s.settle();

    const list = await (await get('/dashboard', bearer)).text();
    const runId = /data-run="(\d+)"/.exec(list)![1];
    for (const path of [`/dashboard/runs/${runId}`, `/dashboard/runs/${runId}?fragment=1`]) {
      const text = await (await get(path, bearer)).text();
      expect(text).not.toMatch(/<img|<svg onload|<iframe|<script>alert/i);
      expect(text).toContain('&lt;img src=x onerror=alert(1)&gt;');
      expect(text).toContain(
        '&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;',
      );
      expect(text).toContain('&lt;svg onload=alert(2)&gt;');
      expect(text).toContain('&lt;iframe');
      // Only our own script, with its nonce, and only on the full page.
      const scripts = text.match(/<script\b[^>]*>/g) ?? [];
      expect(scripts.length).toBe(path.includes('fragment') ? 0 : 1);
      for (const tag of scripts) expect(tag).toMatch(/^<script nonce="[\w+/=]+">$/);
    }
    expect(list).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('streams a change event when the run moves, and at once when the page is stale', async () => {
    s = await startScenario({ env: { DASHBOARD_TOKEN: TOKEN } });
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await startRun('Login', `Add login.\n\n${SPEC_EXAMPLE_PLAN}`);
    const list = await (await get('/dashboard', bearer)).text();
    const runId = /data-run="(\d+)"/.exec(list)![1];
    const page = await (await get(`/dashboard/runs/${runId}`, bearer)).text();
    const version = /data-version="([^"]*)"/.exec(page)![1]!;
    expect((await get('/dashboard/events?run=999999', bearer)).status).toBe(404);

    const stale = await get(`/dashboard/events?run=${runId}&since=old`, bearer);
    expect(stale.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const staleReader = stale.body!.getReader();
    expect(await readUntil(staleReader, 'event: change')).toContain('event: change');
    await staleReader.cancel();

    const current = await get(
      `/dashboard/events?run=${runId}&since=${encodeURIComponent(decodeEntities(version))}`,
      bearer,
    );
    const reader = current.body!.getReader();
    expect(await readUntil(reader, 'retry:')).not.toContain('event: change');
    const pr = (s.double.pulls(REPO) as Array<{ number: number }>)[0]!.number;
    await s.double.comment(REPO, pr, '/approve', MAINTAINER);
    await s.settle();
    expect(await readUntil(reader, 'event: change')).toContain('event: change');
    await reader.cancel();
    expect(issue).toBeGreaterThan(0);
  });

  it('works on embedded PGlite too', async () => {
    s = await startScenario({ engine: 'pglite', env: { DASHBOARD_TOKEN: TOKEN } });
    s.double.setWorker(() => ({ kind: 'pr', costUsd: 0.75 }));
    await startRun('Login', `Add login.\n\n${SPEC_EXAMPLE_PLAN}`);
    const list = await (await get('/dashboard', bearer)).text();
    expect(list).toContain('$0.75 / $20.00');
    const runId = /data-run="(\d+)"/.exec(list)![1];
    const page = await (await get(`/dashboard/runs/${runId}`, bearer)).text();
    expect(page.match(/<g class="node"/g)).toHaveLength(4);
    expect(/data-version="([^"]+)"/.exec(page)![1]).toMatch(/\|/);
  }, 60_000);

  it('names DASHBOARD_TOKEN when it is too weak', () => {
    expect(() => parseEnv({ DASHBOARD_TOKEN: 'short' })).toThrow(EnvError);
    try {
      parseEnv({ DASHBOARD_TOKEN: 'short' });
    } catch (error) {
      expect((error as EnvError).problems).toEqual([
        'DASHBOARD_TOKEN: expected at least 16 characters (for example `openssl rand -hex 32`)',
      ]);
    }
    expect(parseEnv({ DASHBOARD_TOKEN: TOKEN }).dashboardToken).toBe(TOKEN);
    expect(parseEnv({}).dashboardToken).toBeUndefined();
  });
});

function decodeEntities(text: string): string {
  return text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&#96;', '`')
    .replaceAll('&amp;', '&');
}

/** Read the stream until `marker` appears (the test's timeout bounds the wait). */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  marker: string,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before "${marker}": ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}
