import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentSharedFolder } from '../helpers/agent-scratch.js';
import { MAINTAINER, ONE_TASK_PLAN, REPO, taskOf } from '../e2e/harness.js';
import { startRealWorkerScenario, type RealWorkerScenario } from '../e2e/real-worker.js';
import { HOSTILE_AGENT } from './hostile-agent.js';

/**
 * Whether the daemon still runs. A killed orphan stays a zombie until its new parent reaps it,
 * and a sandbox's PID 1 may never reap: a zombie runs nothing and holds nothing, so it counts as
 * dead, as does a pid reused by some other program.
 */
function daemonAlive(pid: number): boolean {
  let stat: string;
  let cmdline: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && cmdline.includes('--daemon');
}

/**
 * The agent is untrusted (docs/worker.md, "Threat model"). A prompt-injected agent, run by the
 * committed action bundle in the three jobs of the real workflow file on the GitHub double,
 * tries every escalation from its job to a credential or a write of its own: the runner's
 * process environments (where a job with id-token: write keeps the OIDC request token), a
 * `core.fsmonitor` command, hooks, filters and credential helpers in `.git/`, tags for a push
 * to carry, a daemon that outlives it, a workflow file, agent configuration with a hook for the
 * next attempt, tokens in the runner's files, and FIFOs where the worker reads after it. Each
 * must fail, and GitHub must end up with nothing but the task's branch and its pull request.
 */

interface AttemptReport {
  attempt: string;
  uid: number;
  sawClaudeSettings: string | null;
  sawClaudeMd: string | null;
  sawNested: string[];
  environsReadable: number;
  sudo: boolean;
  wroteRunnerTemp: boolean;
  filesRead: number;
  found: string[];
  /** What the agent's requests through the key proxy got, and what its own listener heard. */
  keyProxyProbe: unknown;
  /** The copies of the code an earlier attempt's agent left in the shared temporary folders. */
  sawStashes: string[];
}

/** Where the hostile agent leaves the code for a later job (hostile-agent.ts). */
const stashesOf = (report: string) =>
  ['/tmp', '/var/tmp', '/dev/shm'].map((dir) => join(dir, `hostile-stash-${basename(report)}`));

const BRANCH = 'agent/1/a';
const SUBSCRIPTION_TOKEN = 'sk-ant-oat01-subscription-of-the-repository';

describe('a hostile agent', () => {
  let scenario: RealWorkerScenario | undefined;
  let report: string | undefined;
  afterEach(async () => {
    await scenario?.close();
    if (report) {
      rmSync(report, { recursive: true, force: true });
      for (const stash of stashesOf(report)) rmSync(stash, { force: true });
    }
  });

  it('gets no credential, runs nothing of its own in a job with one, and leaves nothing on GitHub but its branch and PR', async () => {
    report = agentSharedFolder('hostile-report-');
    scenario = await startRealWorkerScenario(HOSTILE_AGENT, {
      // An upstream that answers nothing: the agent's requests through the key proxy get 502.
      // The runner's environment holds a subscription's token and an LLM gateway's credential
      // as well as the secret's key.
      env: {
        HOSTILE_REPORT: report,
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
        CLAUDE_CODE_OAUTH_TOKEN: SUBSCRIPTION_TOKEN,
        ANTHROPIC_CUSTOM_HEADERS: 'cf-aig-authorization: Bearer gateway-secret-of-the-repository',
      },
      config: 'retries:\n  max: 2\n  backoff: [0s]\n',
      files: { 'CLAUDE.md': 'Base memory.\n' },
    });
    const { s, runs } = scenario;
    const mainBefore = s.double.branch(REPO, 'main');

    const issue = await s.double.openIssue(REPO, {
      title: 'Work',
      body: ONE_TASK_PLAN,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    const pulls = () =>
      s.double.pulls(REPO) as Array<{ number: number; body: string; head: { ref: string } }>;
    expect(pulls()).toHaveLength(1);
    await s.double.review(REPO, pulls()[0]!.number, {
      event: 'REQUEST_CHANGES',
      body: 'Say more in work.txt.',
      by: MAINTAINER,
    });
    await s.settle();

    // Attempt 1 added a workflow file: the publish job refused the whole change.
    expect(runs.map((r) => r.jobs.map((j) => `${j.job}:${j.conclusion}`))).toEqual([
      ['assignment:success', 'agent:success', 'publish:failure'],
      ['assignment:success', 'agent:success', 'publish:success'],
      ['assignment:success', 'agent:success', 'publish:success'],
    ]);
    expect(runs[0]!.log).toContain(
      'workflow_files_changed (the change touches files under .github/workflows/',
    );
    // The FIFOs each agent left were removed unread (those in .git/ left the checkout with it
    // before the worker read anything), and the jobs went on.
    for (const run of runs)
      expect(run.log).toContain(
        'removed what git cannot record (FIFOs, sockets): fifos/.gitignore',
      );
    const task = await taskOf(s, issue, 'a');
    expect(task?.state).toBe('in_review');

    const attempts = ['1', '2', '3'].map(
      (n) => JSON.parse(readFileSync(join(report!, `attempt-${n}.json`), 'utf8')) as AttemptReport,
    );
    for (const a of attempts) {
      // A user of its own, without sudo, that can read no other process's environment,
      // cannot write where the worker keeps its hand-off, and finds no token in any file.
      expect(a.uid, `attempt ${a.attempt}`).not.toBe(0);
      expect(a.uid).not.toBe(process.getuid?.());
      expect(a.sudo).toBe(false);
      expect(a.environsReadable).toBe(0);
      expect(a.wroteRunnerTemp).toBe(false);
      expect(a.found, `attempt ${a.attempt}`).toEqual([]);
      // A target naming the agent's own listener (`//host/…`, `/\\host/…`) never reaches it: on the
      // closed network (the default) the key proxy refuses it outright, as no path of the Messages
      // API (open, it goes to the upstream: test/worker/api-key-proxy.test.ts).
      expect(a.keyProxyProbe).toEqual({ statuses: [403, 403, 403, 403], heard: [] });
      expect(a.filesRead).toBeGreaterThan(0);
      // What an earlier agent left in the machine's shared folders went with it.
      expect(a.sawStashes, `attempt ${a.attempt}`).toEqual([]);
    }
    // Nor does a later job find them, and no agent got an earlier one's uid (and files).
    expect(stashesOf(report).filter((stash) => existsSync(stash))).toEqual([]);
    expect(new Set(attempts.map((a) => a.uid)).size).toBe(3);
    // Agent configuration committed by attempt 2 does not configure attempt 3's agent.
    expect(attempts[2]!.sawClaudeSettings).toBeNull();
    expect(attempts[2]!.sawClaudeMd).toBe('Base memory.\n');
    expect(attempts[1]!.sawNested).toEqual([]);
    expect(attempts[2]!.sawNested).toEqual([]);
    // No trap ever ran: not in the agent job after the agent, not in the publish job.
    expect(readdirSync(report).filter((f) => f.startsWith('ran-'))).toEqual([]);
    // Every daemon died with its agent, having seen nothing.
    const daemons = readdirSync(report).filter((f) => /^daemon-\d+\.pid$/.test(f));
    expect(daemons).toHaveLength(3);
    for (const file of daemons) {
      const pid = Number(readFileSync(join(report, file), 'utf8'));
      expect(daemonAlive(pid), `daemon ${pid}`).toBe(false);
    }
    const daemonFound = join(report, 'daemon-found');
    expect(existsSync(daemonFound) ? readFileSync(daemonFound, 'utf8') : '').toBe('');

    // GitHub: main as it was, no tag, no workflow file; the task branch and its one PR.
    expect(s.double.branch(REPO, 'main')).toEqual(mainBefore);
    expect(s.double.branches(REPO)).toEqual([BRANCH, 'main']);
    expect(s.double.tags(REPO)).toEqual([]);
    expect(s.double.file(REPO, BRANCH, '.github/workflows/release.yml')).toBeUndefined();
    // (What the daemon wrote while it lived is the agent's own work, as good as any other.)
    expect(s.double.file(REPO, BRANCH, 'work.txt')).toMatch(/^work of attempt 3\n/);
    // The agent's commits and tags in its own .git never left the agent job: the branch holds
    // the worker's commits only.
    const head = s.double.branch(REPO, BRANCH)!.sha;
    const [second] = s.double.commitParents(REPO, head);
    expect(s.double.commitMessage(REPO, head)).toMatch(/^a: A\n\nAgent-Coordinator-Task: 1\/a\/3/);
    expect(s.double.commitMessage(REPO, second!)).toMatch(
      /^a: A\n\nAgent-Coordinator-Task: 1\/a\/2/,
    );
    expect(s.double.commitParents(REPO, second!)).toEqual([mainBefore!.sha]);
    // The PR says that it changes agent configuration, and so does the status comment.
    const pr = pulls()[0]!;
    expect(pr.head.ref).toBe(BRANCH);
    expect(pr.body).toContain('**Agent configuration changed.**');
    expect(pr.body).toMatch(/agent-coordinator:agent-config paths=[^>]*\.claude%2Fsettings\.json/);
    const comments = s.double.comments(REPO, issue) as Array<{
      body: string;
      user: { login: string };
    }>;
    // Only the App wrote on the issue (its status comment): nothing in the agent's name.
    expect(new Set(comments.map((c) => c.user.login)).size).toBe(1);
    const status = comments.find((c) => c.body.includes('agent-coordinator:status'))!;
    expect(status.body).toContain('changes agent configuration');
  }, 240_000);
});
