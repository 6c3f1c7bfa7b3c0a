import { describe, expect, it } from 'vitest';
import { usageAnnotation } from '../../src/protocol/usage-annotation.js';
import { escapeCommandData, oneLine, outcomeLines } from '../../src/worker/outcome.js';
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
      { message: usageAnnotation(USAGE), annotation_level: 'notice' },
    ]);
    expect(annotations.filter((a) => a.annotation_level === 'failure')).toHaveLength(1);
  });
});
