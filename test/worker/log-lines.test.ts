import { describe, expect, it } from 'vitest';
import {
  failureFromAnnotation,
  failureFromNotice,
  failureNotice,
} from '../../src/protocol/failure-reasons.js';
import { usageAnnotation } from '../../src/protocol/usage-annotation.js';
import {
  escapeCommandData,
  inertToRunner,
  oneLine,
  outcomeLines,
} from '../../src/worker/outcome.js';
import { SETUP_NODE_MATCHERS } from '../github-double/worker/problem-matchers.js';
import { WorkflowCommands } from '../github-double/worker/workflow-commands.js';

/**
 * Text the agent chose (a file name, its error, git's words about its files) reaches lines of
 * the worker's log. Read by the runner's rules (the double's WorkflowCommands: the `::` form at a
 * line's start, the legacy `##[…]` form anywhere, CR or LF ending a line), none of it may be a
 * workflow command: a mask, or a notice, would change what the coordinator reads of the job's
 * annotations (docs/worker.md, "What the agent spent").
 */
const ATTACKS = [
  '##[add-mask]agent-coordinator-usage',
  'a ##[add-mask]cost_usd',
  '###[add-mask]cost_usd',
  '##[##[add-mask]cost_usd',
  'x\r::add-mask::cost_usd',
  'x\n::add-mask::cost_usd',
  'x\r##[add-mask]cost_usd',
  '  ::notice::agent-coordinator-usage: cost_usd=0 input_tokens=0 output_tokens=0',
  '##[notice]agent-coordinator-usage: cost_usd=0 input_tokens=0 output_tokens=0',
  '##[stop-commands]t',
];

const USAGE = { costUsd: 1.5, inputTokens: 10, outputTokens: 2 };

function runnerReads(lines: string[]) {
  const commands = new WorkflowCommands();
  commands.feed(`${lines.join('\n')}\n`);
  commands.feed(`::notice::${escapeCommandData(usageAnnotation(USAGE))}\n`);
  return commands.annotations;
}

describe("the worker's log lines, as the runner reads them", () => {
  it.each(ATTACKS)('a log line quoting %j is no command', (text) => {
    expect(runnerReads([`agent-coordinator: ${oneLine(text)}`])).toEqual([
      { message: usageAnnotation(USAGE), annotation_level: 'notice' },
    ]);
  });

  it.each(ATTACKS)("a failure's detail quoting %j is no command but the failure", (text) => {
    const lines = outcomeLines({ ok: false, reason: 'agent_failed', detail: `because ${text}` });
    const annotations = runnerReads(lines);
    expect(annotations.filter((a) => a.annotation_level !== 'failure')).toEqual([
      { message: failureNotice('agent_failed', `because ${text}`), annotation_level: 'notice' },
      { message: usageAnnotation(USAGE), annotation_level: 'notice' },
    ]);
    expect(annotations.filter((a) => a.annotation_level === 'failure')).toHaveLength(1);
  });
});

/**
 * Lines setup-node's problem matchers take (test/github-double/worker/problem-matchers.ts), each
 * with a message in the worker's words: the runner makes an error annotation of it, which the
 * coordinator would read as the attempt's reason (src/engine/worker-report.ts).
 */
const MATCHED = [
  'src/a.ts(1,1): error TS2322: agent-coordinator: timed_out (forged)',
  'src/a.ts:1:1 - error TS2322: agent-coordinator: timed_out (forged)',
  'src/a.ts: line 1, col 1, Error - agent-coordinator: timed_out (forged) (x)',
  // The runner strips NUL, '33[', digits and an 'm' as a colour code before matching.
  'src/a.ts(1,1): error TS2322: agent-coord\u000033[0minator: timed_out (forged)',
];

/** What the coordinator reads of the job's annotations: the first failure in the worker's words. */
function coordinatorReads(lines: string[]) {
  const commands = new WorkflowCommands();
  commands.addMatchers(SETUP_NODE_MATCHERS);
  commands.feed(`${lines.join('\n')}\n`);
  const failures = commands.annotations.filter((a) => a.annotation_level === 'failure');
  return {
    matched: failures.length,
    reason: failures.map((a) => failureFromAnnotation(a.message)).find(Boolean),
  };
}

describe("the worker's log lines, as the job's problem matchers read them", () => {
  const real = outcomeLines({ ok: false, reason: 'agent_failed', detail: 'exited with code 3' });

  it.each(MATCHED)("the agent's line %j makes no failure in the worker's words", (text) => {
    // Unchanged, the runner's matchers take it for the worker's failure.
    expect(coordinatorReads([`│ ${text}`, ...real]).reason?.reason).not.toBe('agent_failed');
    // As the worker prints it: still an error annotation, but not a reason the coordinator takes.
    expect(coordinatorReads([`│ ${inertToRunner(text)}`, ...real])).toEqual({
      matched: 2,
      reason: { reason: 'agent_failed', detail: 'exited with code 3' },
    });
  });

  it.each(MATCHED)("a log line quoting %j makes no failure in the worker's words", (text) => {
    const quoted = [`agent-coordinator: removed ${oneLine(text)}`];
    expect(coordinatorReads([...quoted, ...real]).reason).toEqual({
      reason: 'agent_failed',
      detail: 'exited with code 3',
    });
    const detail = outcomeLines({ ok: false, reason: 'agent_failed', detail: `because\n${text}` });
    expect(coordinatorReads(detail).reason?.reason).toBe('agent_failed');
  });
});

describe("the worker's failure, when the agent's lines fill the step's errors", () => {
  // The runner keeps 10 annotations of each kind a step (actions/runner ExecutionContext.AddIssue).
  const errors = Array.from({ length: 10 }, (_, i) => `│ src/a.ts(${i + 1},1): error TS2322: no`);
  const real = outcomeLines({ ok: false, reason: 'agent_failed', detail: 'exited with code 3' });

  it('leaves the error no room, and the notice says the same', () => {
    const commands = new WorkflowCommands();
    commands.addMatchers(SETUP_NODE_MATCHERS);
    commands.feed(`${[...errors, ...real].join('\n')}\n`);
    const failures = commands.annotations.filter((a) => a.annotation_level === 'failure');
    expect(failures).toHaveLength(10);
    expect(failures.map((a) => failureFromAnnotation(a.message)).find(Boolean)).toBeUndefined();
    const notices = commands.annotations.filter((a) => a.annotation_level === 'notice');
    expect(notices.map((a) => failureFromNotice(a.message)).find(Boolean)).toEqual({
      reason: 'agent_failed',
      detail: 'exited with code 3',
    });
  });

  it.each(MATCHED)('no line quoting %j reads as the notice', (text) => {
    const forged = text.replace(/agent-coordinator:/, 'agent-coordinator-failure:');
    const quoted = [`│ ${inertToRunner(forged)}`, `agent-coordinator: ${oneLine(forged)}`];
    // A success's summary is the agent's text behind the worker's prefix.
    const summary = outcomeLines({ ok: true, summary: forged.slice(forged.indexOf('agent')) });
    const commands = new WorkflowCommands();
    commands.addMatchers(SETUP_NODE_MATCHERS);
    commands.feed(`${[...quoted, ...summary].join('\n')}\n`);
    expect(commands.annotations.map((a) => failureFromNotice(a.message)).filter(Boolean)).toEqual(
      [],
    );
  });
});
