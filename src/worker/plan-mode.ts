import {
  extractTasksBlock,
  formatPlanErrors,
  parsePlanMarkdown,
  parsePlanYaml,
} from '../core/plan/index.js';
import type { PlanError } from '../core/plan/index.js';
import { neutralizeMarkers, planMarker, usageMarker } from '../protocol/markers.js';
import { fenced } from './fence.js';
import { fail, type WorkerOutcome } from './outcome.js';
import type { AgentResult } from './handoff.js';
import { log, type PublishContext } from './steps.js';

const MAX_ANSWER_ECHO = 20_000;
// GitHub refuses an issue comment whose body is longer (422 "body is too long"). Counted in
// UTF-16 units, never fewer than the characters GitHub counts.
const COMMENT_MAX_CHARS = 65_536;

/**
 * `plan`, in the publish job: post the planner agent's answer as ONE issue comment with the
 * plan marker. The comment is validated exactly as posted, with the validator the
 * coordinator uses, so a plan we call valid is one the coordinator accepts. The answer is the
 * agent's: only its tasks block is posted, or, when it holds none, the answer inert in a code
 * block beside the errors.
 */
export async function publishPlan(
  ctx: PublishContext,
  result: AgentResult,
): Promise<WorkerOutcome> {
  const { env, github } = ctx;
  const report = { result: result.summary };
  const runUrl = `${env.serverUrl}/${env.owner}/${env.repo}/actions/runs/${env.runId}`;
  await ctx.credentials.ensureFresh();

  const block = extractTasksBlock(report.result);
  // As the coordinator validates a planner's comment (start-run.ts, applyPlan).
  const limits = { maxTasks: env.maxTasks, planner: true };
  let errors: PlanError[];
  let tasksBlock: string | undefined;
  if (block.ok) {
    tasksBlock = fenced('tasks', block.yaml);
    // What the planner spent, under the plan marker: the coordinator charges it as it accepts
    // the plan, before anything is dispatched.
    const usage = result.usage ? [usageMarker(result.usage)] : [];
    const body = [
      `Plan proposed by the [planner run](${runUrl}):`,
      tasksBlock,
      [planMarker(env.runId), ...usage].join('\n'),
    ].join('\n\n');
    const parsed = parsePlanMarkdown(body, limits);
    if (parsed.ok && body.length >= COMMENT_MAX_CHARS) {
      // Valid, but no comment holds it, and a comment is where a plan lives (docs/lifecycle.md).
      errors = [
        {
          code: 'too_long',
          message: `the plan is ${body.length} characters long, and a GitHub comment holds at most ${COMMENT_MAX_CHARS}: shorten its prompts`,
        },
      ];
    } else if (parsed.ok) {
      const comment = await github.createIssueComment(env.issue, `${body}\n`);
      log(ctx, `posted the plan (${parsed.plan.tasks.length} tasks): ${comment.url}`);
      return {
        ok: true,
        summary: `plan with ${parsed.plan.tasks.length} tasks posted on #${env.issue}`,
        commentId: comment.id,
      };
    } else {
      // Report positions within the block, as the person reading the comment sees it.
      const inBlock = parsePlanYaml(block.yaml, limits);
      errors = inBlock.ok ? parsed.errors : inBlock.errors;
    }
  } else {
    errors = [block.error];
  }

  // Keep what the agent proposed next to the errors: a person fixing it with /plan needs it. A
  // block too long to echo whole is shown cut, as text, so that the comment can be posted.
  const shown =
    tasksBlock !== undefined && tasksBlock.length <= MAX_ANSWER_ECHO
      ? tasksBlock
      : fenced(
          'text',
          neutralizeMarkers((block.ok ? block.yaml : report.result).slice(0, MAX_ANSWER_ECHO)),
        );
  const body = [
    `The [planner run](${runUrl}) did not produce a valid plan${tasksBlock ? ' (lines count inside the tasks block)' : ''}:`,
    formatPlanErrors(errors),
    `<details><summary>What the planner answered</summary>\n\n${shown}\n\n</details>`,
    planMarker(env.runId),
  ].join('\n\n');
  const comment = await github.createIssueComment(env.issue, `${body}\n`);
  log(ctx, `posted the plan errors: ${comment.url}`);
  fail(
    'plan_invalid',
    `the plan is not valid (${errors.length} error${errors.length === 1 ? '' : 's'})`,
  );
}
