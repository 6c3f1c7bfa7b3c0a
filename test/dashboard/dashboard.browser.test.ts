import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_COLORS } from '../../src/dashboard/colors.js';
import {
  MAINTAINER,
  REPO,
  SPEC_EXAMPLE_PLAN,
  startScenario,
  type Scenario,
} from '../e2e/harness.js';
import { launchChromium } from './browser.js';

const TOKEN = 'browser-test-dashboard-token-0123456789';
// The README's picture is refreshed on purpose (`DASHBOARD_SCREENSHOT=docs/dashboard.png`,
// README.md "Quick start"); a plain test run leaves the checkout as it was.
const SCREENSHOT = process.env.DASHBOARD_SCREENSHOT
  ? resolve(process.env.DASHBOARD_SCREENSHOT)
  : join(mkdtempSync(join(tmpdir(), 'dashboard-')), 'dashboard.png');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const ISSUE_TITLE = 'Login for <img src=x onerror="window.__pwned=1"> widgets';

type Pull = { number: number; html_url: string; head: { ref: string } };
type Run = { id: number; html_url: string; inputs: Record<string, string> };
// What page.waitForFunction's callback touches in the page (the tests compile without the DOM lib).
declare const document: {
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
};

// Table cells as the page callbacks read them (those callbacks run in the page: self-contained).
type Cell = { textContent: string | null };

type NodeInfo = {
  task: string;
  state: string;
  fill: string;
  pr: string | null;
  run: string | null;
};

/**
 * The dashboard in real headless Chromium against the GitHub double, mid-run on docs/tasks-block.md's
 * example: task_001 merged, task_002 and task_003 in review, task_004 waiting.
 */
describe('dashboard in a browser', () => {
  let s: Scenario;
  let browser: Browser;
  let page: Page;
  let issue: number;
  const external: string[] = [];

  const prOf = (task: string) =>
    (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === `agent/${issue}/${task}`)!;
  const runsOf = (task: string) =>
    (s.double.runs(REPO) as Run[]).filter((r) => r.inputs.task_id === task);

  // Launched here but awaited in each test, so a missing Chromium fails the tests (a throwing
  // beforeAll would only mark them skipped).
  let launched: Promise<void>;

  beforeAll(async () => {
    launched = launchChromium().then(async (b) => {
      browser = b;
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('request', (request) => {
        const url = request.url();
        if (!url.startsWith(s.app.url) && !url.startsWith('data:')) external.push(url);
      });
    });
    launched.catch(() => {});
    s = await startScenario({ env: { DASHBOARD_TOKEN: TOKEN } });
    s.double.setWorker(() => ({ kind: 'pr', costUsd: 0.5 }));
    await s.double.setPermission(REPO, 'visitor', 'read');
    issue = await s.double.openIssue(REPO, {
      title: ISSUE_TITLE,
      body: `Add login.\n\n${SPEC_EXAMPLE_PLAN}`,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    await s.double.comment(REPO, prOf('task_001').number, '/approve', MAINTAINER);
    await s.settle();
    await s.double.comment(REPO, issue, '/hold <script>window.__pwned=2</script>', 'visitor');
    await s.settle();
  }, 60_000);

  afterAll(async () => {
    await page?.close();
    await browser?.close();
    try {
      s?.double.assertNoViolations();
    } finally {
      await s?.close();
    }
  });

  const nodes = (): Promise<NodeInfo[]> =>
    page.$$eval('svg#graph g.node', (elements) =>
      elements.map((g) => ({
        task: g.getAttribute('data-task') ?? '',
        state: g.getAttribute('data-state') ?? '',
        fill: g.querySelector('rect')?.getAttribute('fill') ?? '',
        pr: g.querySelector('a.pr-link')?.getAttribute('href') ?? null,
        run: g.querySelector('a.run-link')?.getAttribute('href') ?? null,
      })),
    );

  it('lists the run and shows its graph, links, attempts and commands', async () => {
    await launched;
    const tasks = await s.app.store.runs.tasksOf(
      (await s.app.store.runs.latestRun((s.double.repository(REPO) as { id: number }).id, issue))!
        .id,
    );
    expect(Object.fromEntries(tasks.map((t) => [t.taskKey, t.state]))).toEqual({
      task_001: 'merged',
      task_002: 'in_review',
      task_003: 'in_review',
      task_004: 'pending',
    });

    // The token once in the URL, then the cookie; the token does not stay in the address.
    const response = await page.goto(`${s.app.url}/dashboard?token=${TOKEN}`);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${s.app.url}/dashboard`);
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'ac_dashboard')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
    });
    expect(await page.locator('#runs tbody tr').count()).toBe(1);
    expect(await page.locator('#runs tbody tr').innerText()).toContain('octo-org/widgets');
    expect(await page.locator('#runs tbody tr').innerText()).toContain('$1.50 / $20.00');

    await page.locator('#runs a.run-link').click();
    await page.waitForURL(/\/dashboard\/runs\/\d+$/);
    await page.waitForSelector('body[data-live="on"]');

    // Untrusted text is text: the title shows literally and nothing in it ran.
    expect(await page.locator('h1 .issue-title').innerText()).toBe(ISSUE_TITLE);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();

    const graph = await nodes();
    expect(graph.map((n) => [n.task, n.state])).toEqual([
      ['task_001', 'merged'],
      ['task_002', 'in_review'],
      ['task_003', 'in_review'],
      ['task_004', 'pending'],
    ]);
    for (const node of graph) {
      expect(node.fill).toBe(TASK_COLORS[node.state as keyof typeof TASK_COLORS].fill);
    }
    const edges = await page.$$eval('svg#graph path.edge', (paths) =>
      paths.map((p) => `${p.getAttribute('data-from')}->${p.getAttribute('data-to')}`).sort(),
    );
    expect(edges).toEqual([
      'task_001->task_002',
      'task_001->task_003',
      'task_002->task_004',
      'task_003->task_004',
    ]);
    // Layered by depth: 001 above 002 and 003 (side by side) above 004.
    const ys = await page.$$eval('svg#graph g.node rect', (rects) =>
      rects.map((r) => Number(r.getAttribute('y'))),
    );
    expect(ys[0]).toBeLessThan(ys[1]!);
    expect(ys[1]).toBe(ys[2]);
    expect(ys[2]).toBeLessThan(ys[3]!);

    for (const task of ['task_001', 'task_002', 'task_003']) {
      const node = graph.find((n) => n.task === task)!;
      expect(node.pr).toBe(prOf(task).html_url);
      expect(node.run).toBe(runsOf(task).at(-1)!.html_url);
    }
    expect(graph.find((n) => n.task === 'task_004')).toMatchObject({ pr: null, run: null });

    const attempts = await page.$$eval('#attempts tbody tr', (rows) =>
      rows.map((r) => ({
        task: r.getAttribute('data-task'),
        cells: Array.from(r.querySelectorAll('td') as ArrayLike<Cell>, (td) =>
          (td.textContent ?? '').trim(),
        ),
        run: r.querySelector('a.run-link')?.getAttribute('href') ?? null,
      })),
    );
    expect(attempts.map((a) => a.task)).toEqual(['task_001', 'task_002', 'task_003']);
    for (const a of attempts) {
      expect(a.cells[1]).toBe('1');
      expect(a.cells[2]).toBe('work');
      expect(a.cells[4]).toContain('success');
      expect(a.cells[7]).toBe('$0.50');
      expect(a.run).toBe(runsOf(a.task!)[0]!.html_url);
    }

    const commands = await page.$$eval('#commands tbody tr', (rows) =>
      rows.map((r) =>
        Array.from(r.querySelectorAll('td') as ArrayLike<Cell>, (td) =>
          (td.textContent ?? '').trim(),
        ),
      ),
    );
    expect(commands).toHaveLength(2);
    expect(commands[0]![1]).toContain(MAINTAINER);
    expect(commands[0]![3]).toBe('/approve');
    expect(commands[0]![4]).toBe('accepted');
    expect(commands[1]![1]).toContain('visitor');
    expect(commands[1]![3]).toContain('/hold');
    expect(commands[1]![4]).toBe('refused');
    expect(commands[1]![5]).toContain('write access');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(readFileSync(SCREENSHOT).subarray(0, 8)).toEqual(PNG_SIGNATURE);
  });

  it('updates live when the run changes', async () => {
    await launched;
    expect(page.url()).toMatch(/\/dashboard\/runs\/\d+$/);
    await s.double.comment(REPO, prOf('task_002').number, '/approve', MAINTAINER);
    await s.settle();
    await page.waitForFunction(
      () =>
        document
          .querySelector('svg#graph g.node[data-task="task_002"]')
          ?.getAttribute('data-state') === 'merged',
      undefined,
      { timeout: 10_000 },
    );
    expect(Number(await page.getAttribute('body', 'data-updates'))).toBeGreaterThan(0);
    const node = (await nodes()).find((n) => n.task === 'task_002')!;
    expect(node.fill).toBe(TASK_COLORS.merged.fill);
    expect(await page.locator('#commands tbody tr').count()).toBe(3);
    // Nothing was fetched from outside the app: everything is inline.
    expect(external).toEqual([]);
  });
});
