// `npm run demo`: the whole flow offline, in about a minute, with no GitHub account: the real
// app on embedded PGlite against the GitHub double, with simulated workers and a maintainer.
import { Writable } from 'node:stream';
import { startCoordinator } from '../src/coordinator.js';
import { parseEnv } from '../src/env.js';
import { createLogger } from '../src/logger.js';
import { startGitHubDouble } from '../test/github-double/index.js';
import { SPEC_EXAMPLE_PLAN } from '../test/e2e/harness.js';
import { TEST_PRIVATE_KEY, TestOctokit } from '../test/helpers/app.js';

const REPO = 'demo-org/widgets';
const MAINTAINER = 'maintainer';
const started = Date.now();
const say = (line: string) =>
  console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${line}`);

async function main(): Promise<void> {
  const secret = 'demo-secret';
  const double = await startGitHubDouble({ webhookSecret: secret, appId: 4242 });
  const env = parseEnv({
    APP_ID: '4242',
    PRIVATE_KEY: TEST_PRIVATE_KEY,
    WEBHOOK_SECRET: secret,
    PORT: '0',
    HOST: '127.0.0.1',
    GHE_HOST: new URL(double.apiUrl).host,
    GHE_PROTOCOL: 'http',
  });
  const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
  const app = await startCoordinator({
    env: { ...env, appId: 4242, privateKey: TEST_PRIVATE_KEY },
    log: createLogger({ level: 'info', destination: quiet }),
    Octokit: TestOctokit,
    inMemoryDatabase: true,
    schedule: false,
  });
  double.setWebhookUrl(`${app.url}/api/github/webhooks`);
  say(`GitHub double on ${double.url}, agent-coordinator on ${app.url} (PGlite in memory)`);

  await double.createRepo({
    owner: 'demo-org',
    name: 'widgets',
    files: {
      'README.md': '# widgets\n',
      '.github/agent-coordinator.yml': 'merge:\n  method: squash\n  requireApproval: true\n',
    },
  });
  await double.setPermission(REPO, MAINTAINER, 'maintain');

  // Simulated workers: every task opens a PR after a moment of "work".
  double.setWorker((run) => {
    say(`  worker  ${run.displayTitle}: coding on ${run.branch}`);
    return { kind: 'pr', costUsd: 0.37, inputTokens: 9000, outputTokens: 2100 };
  });
  double.on(
    'webhook-sent',
    // Webhook payloads are GitHub's JSON, read loosely for display only.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    (d: { event: string; action: string | null; payload: Record<string, any> }) => {
      const p = d.payload;
      if (d.event === 'pull_request' && d.action === 'opened')
        say(`  github  PR #${p.pull_request.number} opened: ${p.pull_request.title}`);
      if (d.event === 'pull_request' && d.action === 'closed' && p.pull_request.merged)
        say(`  github  PR #${p.pull_request.number} merged by ${p.sender.login}`);
      if (d.event === 'workflow_run' && d.action === 'requested')
        say(`  github  dispatched ${p.workflow_run.display_title}`);
      if (d.event === 'issues' && d.action === 'closed')
        say(`  github  issue #${p.issue.number} closed by ${p.sender.login}`);
    },
  );

  const settle = async () => {
    for (;;) {
      const before = double.deliveries().length;
      await double.waitForDeliveries();
      await double.waitForWorkers();
      await app.whenIdle();
      await double.waitForDeliveries();
      if (double.deliveries().length === before) return;
    }
  };

  const issue = await double.openIssue(REPO, {
    title: 'Add login',
    body: `We need a login endpoint.\n\n${SPEC_EXAMPLE_PLAN}`,
    user: MAINTAINER,
  });
  say(`maintainer opens issue #${issue} with a 4-task plan and adds the "agent" label`);
  await double.addLabel(REPO, issue, 'agent', MAINTAINER);
  await settle();

  // The maintainer reviews: every open agent PR gets `/approve`, until the issue is closed.
  const approved = new Set<number>();
  for (let round = 0; round < 50; round++) {
    const open = (
      double.pulls(REPO) as Array<{ number: number; state: string; head: { ref: string } }>
    ).filter(
      (p) => p.state === 'open' && p.head.ref.startsWith('agent/') && !approved.has(p.number),
    );
    const issueState = (double.issue(REPO, issue) as { state: string }).state;
    if (issueState === 'closed' || open.length === 0) break;
    for (const pr of open) {
      say(`maintainer comments /approve on PR #${pr.number} (${pr.head.ref})`);
      approved.add(pr.number);
      await double.comment(REPO, pr.number, '/approve', MAINTAINER);
    }
    await settle();
  }

  const comments = double.comments(REPO, issue) as Array<{ body: string }>;
  const status = comments.find((c) => c.body.includes('<!-- agent-coordinator:status -->'));
  console.log('\n──────── the status comment on issue #' + issue + ' ────────\n');
  console.log(status?.body ?? '(none)');
  const state = double.issue(REPO, issue) as { state: string; labels: Array<{ name: string }> };
  console.log('\n────────');
  say(`issue #${issue} is ${state.state}, labels: ${state.labels.map((l) => l.name).join(', ')}`);
  const counts = double.counts();
  say(`GitHub API calls: ${counts.apiCalls}, content writes: ${counts.contentWrites}`);
  double.assertNoViolations();
  await app.close();
  await double.close();
  if (state.state !== 'closed') {
    console.error('demo: the issue did not close');
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
