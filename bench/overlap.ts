// Benchmark 7: conflicts sent back to workers with and without `files:` (docs/lifecycle.md,
// "Overlapping files"), on the GitHub double with tasks that really edit the same files.
import { ask, nextMessage } from './lib/child.js';
import { startFleetStack, stopFleetStack } from './lib/fleet-stack.js';
import type { Report } from './lib/report.js';
import { nowMs } from './lib/stats.js';
import { FLEET_REPO_CONFIG, SUBSCRIBED_EVENTS } from './fleet.js';

const OWNER = 'overlap-org';
const MAINTAINER = 'maintainer';

/**
 * `pairs` groups of `perFile` independent tasks; the tasks of a group all edit the same file
 * (`src/mod<g>/index.ts`, which exists). With `files:` each task declares its file.
 */
function issueBody(groups: number, perFile: number, withFiles: boolean): string {
  const lines = ['Edit the modules.', '', '```tasks'];
  for (let g = 0; g < groups; g++)
    for (let k = 0; k < perFile; k++) {
      lines.push(`- id: m${g}_${k}`, `  title: Edit module ${g} (${k})`);
      if (withFiles) lines.push(`  files: [src/mod${g}/index.ts]`);
    }
  lines.push('```', '');
  return lines.join('\n');
}

interface Outcome {
  fixDispatches: number;
  dispatches: number;
  wallS: number;
}

async function runOnce(
  report: Report,
  groups: number,
  perFile: number,
  withFiles: boolean,
  nodeArgs: string[] | undefined,
): Promise<Outcome> {
  const stack = await startFleetStack({ subscribedEvents: SUBSCRIBED_EVENTS, nodeArgs });
  const { double, child } = stack;
  try {
    const { url } = await nextMessage<{ type: string; url: string }>(child, 'ready');
    double.setWebhookUrl(`${url}/api/github/webhooks`);
    const files: Record<string, string> = {
      'README.md': '# modules\n',
      '.github/agent-coordinator.yml': FLEET_REPO_CONFIG,
    };
    for (let g = 0; g < groups; g++) files[`src/mod${g}/index.ts`] = `export const m${g} = 0;\n`;
    const repo = await double.createRepo({ owner: OWNER, name: 'modules', files });
    await double.setPermission(repo, MAINTAINER, 'maintain');
    // Each task edits its group's file; sent back after a conflict (mode=fix), it takes the
    // base's version of the file, which resolves it.
    double.setWorker((run) => {
      const task = run.inputs.task_id ?? '';
      const group = /^m(\d+)_/.exec(task)?.[1] ?? '0';
      const path = `src/mod${group}/index.ts`;
      const content =
        run.inputs.mode === 'fix'
          ? (double.file(repo, 'main', path) ?? '')
          : `export const m${group} = '${task}';\n`;
      return { kind: 'pr', files: { [path]: content } };
    });
    const number = await double.openIssue(repo, {
      title: 'Modules',
      body: issueBody(groups, perFile, withFiles),
      user: MAINTAINER,
    });
    await ask(child, { type: 'idle' }, 'idle', 120_000);
    const start = nowMs();
    await double.addLabel(repo, number, 'agent', MAINTAINER);
    await double.waitFor((x) => (x.issue(repo, number) as { state: string }).state === 'closed', {
      timeoutMs: 600_000,
      description: `issue #${number} closed`,
    });
    const wallS = (nowMs() - start) / 1000;
    const runs = double.runs(repo).filter((r) => r.inputs.task_id !== 'plan');
    return {
      fixDispatches: runs.filter((r) => r.inputs.mode === 'fix').length,
      dispatches: runs.length,
      wallS,
    };
  } finally {
    await stopFleetStack(stack, report);
  }
}

export async function runOverlap(
  report: Report,
  options: { quick: boolean; nodeArgs?: string[] },
): Promise<void> {
  const groups = options.quick ? 2 : 4;
  const perFile = 3;
  report.note(
    `overlap: ${groups * perFile} independent tasks in ${groups} groups of ${perFile} that edit the same file, merge.requireApproval false; the same plan without and with files:`,
  );
  const without = await runOnce(report, groups, perFile, false, options.nodeArgs);
  report.note(
    `  without files: ${without.dispatches} dispatches, ${without.fixDispatches} of them mode=fix after a conflict, ${without.wallS.toFixed(1)} s`,
  );
  const withFiles = await runOnce(report, groups, perFile, true, options.nodeArgs);
  report.note(
    `  with files: ${withFiles.dispatches} dispatches, ${withFiles.fixDispatches} of them mode=fix after a conflict, ${withFiles.wallS.toFixed(1)} s`,
  );
  report.figure('conflicts_sent_back_without_files', without.fixDispatches, 'dispatches');
  report.figure('conflicts_sent_back_with_files', withFiles.fixDispatches, 'dispatches');
  report.figure('overlap_wall_without_files_s', without.wallS, 's');
  report.figure('overlap_wall_with_files_s', withFiles.wallS, 's');
}
