import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, helpText } from '../../../src/core/commands/index.js';

describe('helpText', () => {
  it('has every command, in both contexts', () => {
    expect([...COMMAND_NAMES].sort()).toEqual(
      ['approve', 'cancel', 'help', 'hold', 'plan', 'retry', 'status', 'unhold', 'veto'].sort(),
    );
    for (const context of ['issue', 'pull_request'] as const) {
      const text = helpText(context);
      for (const name of COMMAND_NAMES) expect(text).toContain(`\`/${name}`);
    }
  });

  it('is a markdown table with the usage of each context', () => {
    const issue = helpText('issue');
    expect(issue).toContain('| command | what it does |\n|---|---|');
    expect(issue).toContain('| `/approve <task_id>` |');
    expect(issue).toContain('| `/veto <task_id> [reason]` |');
    expect(issue).toContain('| `/retry <task_id> [feedback]` |');
    expect(issue).toContain('| `/plan` + tasks block |');
    expect(issue).toContain('| `/status` |');

    const pr = helpText('pull_request');
    expect(pr).toContain('| `/veto [reason]` |');
    expect(pr).toContain('| `/retry [feedback]` |');
    expect(pr).not.toContain('| `/plan`');
    expect(pr).not.toContain('| `/status`');
    expect(pr).toContain('`/plan` and `/status` work on the issue only.');
  });

  it('has rows of exactly two cells', () => {
    for (const context of ['issue', 'pull_request'] as const) {
      const rows = helpText(context)
        .split('\n')
        .filter((line) => line.startsWith('|'));
      expect(rows.length).toBeGreaterThan(5);
      for (const row of rows) expect(row.split('|')).toHaveLength(4);
    }
  });
});
