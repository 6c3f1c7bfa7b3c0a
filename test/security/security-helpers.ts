import { expect } from 'vitest';
import { REPO, type Scenario } from '../e2e/harness.js';

export const STATUS_MARKER = '<!-- agent-coordinator:status -->';
export const APP_BOT = 'agent-coordinator[bot]';

export type Comment = {
  id: number;
  body: string;
  user: { login: string; type: string };
  reaction_contents: string[];
};

/** A workflow run as the double lists it, as much as the checks scenarios read. */
export type RunJson = {
  id: number;
  event: string;
  head_sha: string;
  head_repository: { full_name: string };
  actor: { login: string };
  inputs: Record<string, string>;
};

/** A CI job's failing attempt whose annotation and log carry `text` (an injection attempt). */
export function failingJobWith(text: string) {
  return {
    conclusion: 'failure' as const,
    annotations: [
      {
        message: text,
        title: text,
        annotation_level: 'failure' as const,
        path: 'README.md',
        start_line: 1,
      },
    ],
    steps: [{ name: 'npm test', lines: ['FAIL', text], failed: true }],
  };
}

export type Pull = {
  number: number;
  state: string;
  merged?: boolean;
  body: string | null;
  head: { ref: string; sha: string; repo: { id: number } | null };
};

/** A ```tasks block from `[id, title, deps?]` rows. */
export function tasksBlock(rows: Array<[id: string, title: string, deps?: string[]]>): string {
  const lines = ['```tasks'];
  for (const [id, title, deps] of rows) {
    lines.push(`- id: ${id}`, `  title: ${title}`);
    if (deps && deps.length > 0) lines.push(`  deps: [${deps.join(', ')}]`);
  }
  lines.push('```');
  return lines.join('\n');
}

export function repositoryId(s: Scenario): number {
  return (s.double.repository(REPO) as { id: number }).id;
}

export function comments(s: Scenario, number: number): Comment[] {
  return s.double.comments(REPO, number) as Comment[];
}

export function appComments(s: Scenario, number: number): Comment[] {
  return comments(s, number).filter((c) => c.user.login === APP_BOT);
}

/**
 * The app's comments that open with the status marker, as the status comment does: there must
 * be exactly one per issue. (A reply may quote the marker inside a code span; that is text.)
 */
export function statusComments(s: Scenario, issue: number): Comment[] {
  return appComments(s, issue).filter((c) => c.body.startsWith(STATUS_MARKER));
}

export function theStatusComment(s: Scenario, issue: number): string {
  const found = statusComments(s, issue);
  expect(found, 'exactly one status comment by the app').toHaveLength(1);
  return found[0]!.body;
}

export function pulls(s: Scenario): Pull[] {
  return s.double.pulls(REPO) as Pull[];
}

export function prOf(s: Scenario, issue: number, task: string): Pull | undefined {
  return pulls(s).find(
    (p) => p.head.ref === `agent/${issue}/${task}` && p.head.repo?.id === repositoryId(s),
  );
}

export function mergedPulls(s: Scenario): number[] {
  return s.double
    .deliveries({ event: 'pull_request', action: 'closed' })
    .filter((d) => (d.payload.pull_request as { merged: boolean }).merged)
    .map((d) => (d.payload.pull_request as { number: number }).number);
}

export async function latestRun(s: Scenario, issue: number) {
  return s.app.store.runs.latestRun(repositoryId(s), issue);
}

export async function taskState(s: Scenario, issue: number, key: string) {
  const run = await latestRun(s, issue);
  return run ? (await s.app.store.runs.task(run.id, key))?.state : undefined;
}

/** Everything a command could move: runs and tasks in the store, runs, merges, branches in the double. */
export async function snapshot(s: Scenario, issues: number[]) {
  const runs = [];
  for (const issue of issues) {
    const run = await latestRun(s, issue);
    if (!run) {
      runs.push({ issue, run: null });
      continue;
    }
    const tasks = await s.app.store.runs.tasksOf(run.id);
    runs.push({
      issue,
      run: {
        id: run.id,
        state: run.state,
        held: run.held,
        planApproved: run.planApproved,
        finishedAt: run.finishedAt,
      },
      tasks: tasks
        .map((t) => ({
          key: t.taskKey,
          state: t.state,
          held: t.held,
          approvedSha: t.approvedSha,
          vetoReason: t.vetoReason,
          attempts: t.attemptCount,
          pendingFeedback: t.pendingFeedback,
        }))
        .sort((a, b) => a.key.localeCompare(b.key)),
    });
  }
  return {
    runs,
    workflowRuns: s.double.runs(REPO).length,
    merged: mergedPulls(s),
    branches: s.double.branches(REPO),
    labels: issues.map((i) => s.double.labels(REPO, i)),
    statusComments: issues.map((i) => statusComments(s, i).map((c) => c.body)),
  };
}

export type CheckRun = {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  output: { title: string; summary: string };
};

/** The newest `agent-coordinator/order` check on a SHA: the one GitHub's merge box goes by. */
export function orderCheckOf(s: Scenario, sha: string): CheckRun | undefined {
  return (s.double.checkRuns(REPO, sha) as CheckRun[])
    .filter((c) => c.name === 'agent-coordinator/order')
    .sort((a, b) => a.id - b.id)
    .at(-1);
}
