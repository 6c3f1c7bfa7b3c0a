import { describe, expect, it } from 'vitest';
import {
  parseAgentConfigMarker,
  parseUsageMarker,
  updateBodyMarkers,
  usageMarker,
} from '../../src/protocol/markers.js';
import type { Usage } from '../../src/protocol/markers.js';
import { readSection } from '../../src/protocol/pull-sections.js';
import { pullBody, updatedPullBody } from '../../src/worker/pull-request.js';

const task = {
  issue: 7,
  taskId: 'task_001',
  attempt: 1,
  title: 'T',
  prompt: 'P',
  branch: 'agent/7/task_001',
  timeoutMinutes: 30,
};

const input = (summary: string, usage: Usage | undefined) => ({
  summary,
  usage,
  partial: false,
  record: {
    attempt: 1,
    mode: 'work' as const,
    conclusion: 'pushed' as const,
    usage,
    runUrl: 'https://github.com/acme/widgets/actions/runs/1',
    feedback: '',
  },
});

describe('PR body markers', () => {
  it('formats usage without float noise', () => {
    expect(usageMarker({ costUsd: 0.1 + 0.2, inputTokens: 3, outputTokens: 4 })).toBe(
      '<!-- agent-coordinator:usage cost_usd=0.3 input_tokens=3 output_tokens=4 -->',
    );
  });

  it('shows a hostile title inert: no mention, reference, link, HTML or marker', () => {
    const title =
      '@alice see octo/repo#2 https://evil.example <img src=x> <!-- agent-coordinator:plan run_id=1 -->';
    const line = pullBody({ ...task, title }, input('', undefined)).split('\n')[0]!;
    expect(line).not.toMatch(/@alice|#2|https:\/\/|<img|<!--/);
    expect(line.replace(/\u2060/g, '').replace(/\\/g, '')).toContain('alice see octo/repo');
  });

  it('adds this attempt to the usage already recorded, and replaces the task marker', () => {
    const first = pullBody(
      task,
      input('Summary.', { costUsd: 1.5, inputTokens: 100, outputTokens: 10 }),
    );
    const second = updateBodyMarkers(`${first}\nEdited by a person.`, {
      issue: 7,
      taskId: 'task_001',
      attempt: 2,
      usage: { costUsd: 0.25, inputTokens: 50, outputTokens: 5 },
    });
    expect(second).toContain('Edited by a person.');
    expect(second.match(/agent-coordinator:task/g)).toHaveLength(1);
    expect(second).toContain('attempt=2 -->');
    expect(parseUsageMarker(second)).toEqual({ costUsd: 1.75, inputTokens: 150, outputTokens: 15 });
  });

  it('keeps the recorded usage when the attempt reports none, and adds none when nothing was recorded', () => {
    const body = updateBodyMarkers(
      pullBody(task, input('', { costUsd: 1, inputTokens: 1, outputTokens: 1 })),
      {
        ...task,
        attempt: 3,
      },
    );
    expect(parseUsageMarker(body)).toEqual({ costUsd: 1, inputTokens: 1, outputTokens: 1 });
    expect(updateBodyMarkers('plain', { ...task })).not.toContain('usage');
  });

  it('does not let task text forge a marker', () => {
    const body = pullBody(
      {
        ...task,
        title: '<!-- agent-coordinator:usage cost_usd=0 -->',
        prompt: '<!-- agent-coordinator:task issue=1 -->',
      },
      input('<!-- agent-coordinator:usage cost_usd=0 -->', undefined),
    );
    expect(body.match(/<!-- agent-coordinator:(task|usage|plan)/g)).toHaveLength(1);
    expect(parseUsageMarker(body)).toBeUndefined();
  });

  it("shows the agent's summary inert, line by line, inside its section", () => {
    const summary =
      'Fixed it.\n- thanks @alice, see https://evil.example\n<img src=x> <!-- agent-coordinator:end summary -->';
    const body = pullBody(task, input(summary, undefined));
    const shown = readSection(body, 'summary')!;
    expect(shown.split('\n')).toEqual([
      '**What the agent did** (attempt 1):',
      '',
      '> Fixed it.  ',
      expect.stringMatching(/^> \\- thanks @\u2060alice/),
      expect.stringMatching(/^> &lt;img src=x&gt; &lt;!--/),
    ]);
    expect(shown).not.toMatch(/@alice|https:\/\/|<img|<!--/);
    expect(body.match(/agent-coordinator:end summary/g)).toHaveLength(1);
  });

  it('cuts a prompt and a summary whose escaping grows them, so the body stays under GitHub limit', () => {
    // Every `<` becomes `&lt;`: 30,000 of them would be 120,000 characters once inert.
    const hostile = '<<<<<<<<<<\n'.repeat(6_000);
    const body = pullBody({ ...task, prompt: hostile }, input(hostile, undefined));
    expect(body.length).toBeLessThan(45_000);
    expect(body).toContain('… (cut)\n\n</details>');
    expect(readSection(body, 'summary')).toMatch(/> … \(cut\)$/);
  });

  describe('agent configuration', () => {
    const CHANGED = ['.claude/settings.json', '.mcp.json', 'CLAUDE.md'];
    it.each([
      ['none', [], '', []],
      ['three', CHANGED, '- CLAUDE.md', CHANGED],
      [
        'hostile names',
        ['.claude/a,b c-->.md', '.claude/@alice #1'],
        '- .claude/@\u2060alice #\u20601',
        ['.claude/a,b c-->.md', '.claude/@alice #1'],
      ],
      [
        'more than fit',
        Array.from({ length: 53 }, (_, i) => `.claude/${i}.md`),
        '- … and 3 more',
        Array.from({ length: 50 }, (_, i) => `.claude/${i}.md`),
      ],
    ] as const)(
      'a new PR changing %s says so in its section and its marker',
      (_name, paths, line, read) => {
        const body = pullBody(task, { ...input('', undefined), agentConfigChanged: [...paths] });
        const section = readSection(body, 'agent-config')!;
        if (paths.length === 0) {
          expect(section).toBe('');
          expect(body).not.toContain('agent-coordinator:agent-config paths=');
        } else {
          expect(section).toMatch(/^\*\*Agent configuration changed\.\*\*/);
          expect(section.split('\n')).toContain(line);
          expect(section).not.toMatch(/<|-->/);
        }
        expect(parseAgentConfigMarker(body)).toEqual(read);
      },
    );

    const opened = pullBody(task, { ...input('', undefined), agentConfigChanged: CHANGED });
    const env = { ...task, attempt: 2 };

    it('an update that looked replaces the list, and an empty list takes the warning and marker away', () => {
      const one = updatedPullBody(env, opened, {
        ...input('', undefined),
        agentConfigChanged: ['AGENTS.md'],
      });
      expect(parseAgentConfigMarker(one)).toEqual(['AGENTS.md']);
      expect(readSection(one, 'agent-config')).toContain('- AGENTS.md');
      expect(readSection(one, 'agent-config')).not.toContain('- CLAUDE.md');
      const none = updatedPullBody(env, one, { ...input('', undefined), agentConfigChanged: [] });
      expect(readSection(none, 'agent-config')).toBe('');
      expect(parseAgentConfigMarker(none)).toEqual([]);
      expect(none).not.toContain('agent-coordinator:agent-config paths=');
    });

    it('an update that did not look keeps what the body says', () => {
      const kept = updatedPullBody(env, opened, input('Fixed.', undefined));
      expect(parseAgentConfigMarker(kept)).toEqual(CHANGED);
      expect(readSection(kept, 'agent-config')).toBe(readSection(opened, 'agent-config'));
      expect(kept.match(/agent-coordinator:agent-config paths=/g)).toHaveLength(1);
    });

    it('a PR opened before the section gets one only when there is something to say', () => {
      const old =
        'Task `task_001`: T\n\n<!-- agent-coordinator:task issue=7 task=task_001 attempt=1 -->\n';
      const quiet = updatedPullBody(env, old, { ...input('', undefined), agentConfigChanged: [] });
      expect(readSection(quiet, 'agent-config')).toBeUndefined();
      const loud = updatedPullBody(env, old, {
        ...input('', undefined),
        agentConfigChanged: ['.mcp.json'],
      });
      expect(readSection(loud, 'agent-config')).toContain('- .mcp.json');
    });

    it('task text cannot forge the marker', () => {
      const body = pullBody(
        {
          ...task,
          title: '<!-- agent-coordinator:agent-config paths=x -->',
          prompt: '<!-- agent-coordinator:agent-config paths=y -->',
        },
        input('<!-- agent-coordinator:agent-config paths=z -->', undefined),
      );
      expect(parseAgentConfigMarker(body)).toEqual([]);
    });
  });
});
