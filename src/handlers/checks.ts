import type { Probot } from 'probot';
import type { AppServices } from '../app.js';
import {
  checkMergeGroup,
  ORDER_CHECK_NAME,
  type MergeGroupPull,
  type MergeGroupRun,
} from '../core/merge/index.js';
import { loadRunScope } from '../engine/context.js';
import { advanceRun } from '../engine/merge/index.js';

/** Check results on an agent PR head re-decide its merge; merge groups get the order verdict. */
export function registerCheckHandlers(app: Probot, services: AppServices): void {
  app.on(['check_run.completed', 'check_suite.completed'], async (context) => {
    const { engine } = services;
    const payload = context.payload as {
      check_run?: { head_sha: string; name: string };
      check_suite?: { head_sha: string };
    };
    if (payload.check_run?.name === ORDER_CHECK_NAME) return; // our own
    const sha = payload.check_run?.head_sha ?? payload.check_suite?.head_sha;
    if (!sha) return;
    const found = await engine.store.pulls.withHead(context.payload.repository.id, sha);
    const runs = new Map(found.filter((f) => !f.run.finishedAt).map((f) => [f.run.id, f.run]));
    const port = services.port(context.octokit);
    for (const run of runs.values())
      await advanceRun(engine, await loadRunScope(engine, run, port));
  });

  app.on('merge_group.checks_requested', async (context) => {
    const { engine } = services;
    const { merge_group: group, repository } = context.payload;
    if (!repository) return;
    const lastPr = /\/pr-(\d+)-/.exec(group.head_ref)?.[1];
    let queued = await engine.store.pulls.queued(repository.id);
    // The group can be handled before our record of the enqueue that made it (the sweep
    // enqueues outside any delivery): an agent PR we do not know as queued is still judged,
    // as the queue's last entry, never waved through as someone else's PR.
    if (lastPr !== undefined && !queued.some((q) => q.pull.number === Number(lastPr))) {
      const agentPull = await engine.store.pulls.withTask(repository.id, Number(lastPr));
      if (agentPull) queued = [...queued, agentPull];
    }
    // The group is the queue up to and including the PR its ref names (GitHub groups cumulatively).
    const cut =
      lastPr === undefined ? -1 : queued.findIndex((q) => q.pull.number === Number(lastPr));
    const members =
      cut >= 0 ? queued.slice(0, cut + 1) : queued.filter((q) => q.pull.number === Number(lastPr));
    const pulls: MergeGroupPull[] = members.map((m) => ({
      number: m.pull.number,
      taskId: m.task.taskKey,
      runKey: String(m.run.id),
    }));
    if (lastPr !== undefined && !members.some((m) => m.pull.number === Number(lastPr)))
      pulls.push({ number: Number(lastPr) });
    const runs = new Map<string, MergeGroupRun>();
    for (const run of new Map(members.map((m) => [m.run.id, m.run])).values()) {
      const { tasks, depsOf } = await engine.store.runs.graphOf(run.id);
      runs.set(String(run.id), {
        tasks: tasks.map((t) => ({
          taskId: t.taskKey,
          deps: depsOf.get(t.taskKey) ?? [],
          state: t.state,
          prNumber: t.prNumber ?? undefined,
        })),
      });
    }
    const verdict = checkMergeGroup(pulls, runs);
    await services
      .port(context.octokit)
      .createCheckRun(context.repo(), group.head_sha, ORDER_CHECK_NAME, {
        status: 'completed',
        conclusion: verdict.ok ? 'success' : 'failure',
        title: verdict.ok ? 'dependency order holds' : 'out of dependency order',
        summary: verdict.ok
          ? 'Every agent PR in this merge group lands after its dependencies.'
          : verdict.reason,
      });
    engine.log.info({ group: group.head_ref, ok: verdict.ok }, 'merge group order checked');
  });
}
