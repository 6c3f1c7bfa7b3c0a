import { describe, expect, it } from 'vitest';
import {
  historyAttempts,
  historyRow,
  historyWith,
  isPartial,
  readSection,
  renderSection,
  sectionEnd,
  sectionStart,
  writeSection,
  type AttemptRecord,
} from '../../src/protocol/pull-sections.js';
import { parseReplyMarker, replyMarker } from '../../src/protocol/markers.js';

const record = (attempt: number, extra: Partial<AttemptRecord> = {}): AttemptRecord => ({
  attempt,
  mode: attempt === 1 ? 'work' : 'fix',
  conclusion: 'pushed',
  usage: { costUsd: 0.256, inputTokens: 1000, outputTokens: 200 },
  runUrl: `https://github.com/acme/widgets/actions/runs/${100 + attempt}`,
  feedback: '',
  ...extra,
});

describe('PR body sections', () => {
  it('round-trip: what is written is what is read, markers on lines of their own', () => {
    const body = writeSection('Intro.', 'summary', 'Did the thing.\n\nTwice.');
    expect(body).toBe(
      `Intro.\n\n${sectionStart('summary')}\n\nDid the thing.\n\nTwice.\n\n${sectionEnd('summary')}\n`,
    );
    expect(readSection(body, 'summary')).toBe('Did the thing.\n\nTwice.');
    expect(readSection(body, 'history')).toBeUndefined();
    expect(readSection(null, 'summary')).toBeUndefined();
  });

  it('replaces a section where it stands and keeps what people wrote around it', () => {
    const first = [
      'Task `t`',
      renderSection('partial', 'Partial work.'),
      renderSection('summary', 'Old summary.'),
      'A note a reviewer added.',
    ].join('\n\n');
    const next = writeSection(writeSection(first, 'summary', 'New summary.'), 'partial', '');
    expect(next).toBe(
      [
        'Task `t`',
        `${sectionStart('partial')}\n${sectionEnd('partial')}`,
        renderSection('summary', 'New summary.'),
        'A note a reviewer added.',
      ].join('\n\n'),
    );
    expect(isPartial(first)).toBe(true);
    expect(isPartial(next)).toBe(false);
  });

  it('drops copies of a section (a person pasted it twice), keeping the first place', () => {
    const twice = `${renderSection('summary', 'a')}\n\nmiddle\n\n${renderSection('summary', 'b')}`;
    const next = writeSection(twice, 'summary', 'c');
    expect(next.match(/agent-coordinator:section summary/g)).toHaveLength(1);
    expect(next.startsWith(renderSection('summary', 'c'))).toBe(true);
    expect(next).toContain('middle');
  });

  it('cannot be ended or forged by its content', () => {
    const hostile = `x ${sectionEnd('summary')} ${sectionStart('partial')} y`;
    const body = writeSection('', 'summary', hostile);
    expect(readSection(body, 'summary')).toBe(hostile.replace(/<!--/g, '&lt;!--'));
    expect(isPartial(body)).toBe(false);
  });
});

describe('attempt history', () => {
  it('appends a row per attempt and replaces the row of a re-run attempt', () => {
    const one = historyWith(undefined, record(1));
    const two = historyWith(one, record(2, { conclusion: 'timed_out', usage: undefined }));
    const rerun = historyWith(two, record(2, { feedback: 'failing: test' }));
    expect(historyAttempts(one)).toEqual([1]);
    expect(historyAttempts(two)).toEqual([1, 2]);
    expect(historyAttempts(rerun)).toEqual([1, 2]);
    expect(rerun).toBe(
      [
        '### Attempts',
        '',
        '| attempt | mode | conclusion | cost | tokens (in / out) | log | feedback |',
        '| ---: | --- | --- | ---: | ---: | --- | --- |',
        '| 1 | work | pushed | $0.26 | 1000 / 200 | [run](https://github.com/acme/widgets/actions/runs/101) | — |',
        '| 2 | fix | pushed | $0.26 | 1000 / 200 | [run](https://github.com/acme/widgets/actions/runs/102) | failing: test |',
      ].join('\n'),
    );
    expect(two).toContain('| 2 | fix | timed out (partial) | — | — |');
  });

  it('survives a round trip through the PR body, rows of earlier attempts untouched', () => {
    let body = writeSection('Task', 'history', historyWith(undefined, record(1)));
    body = `${body}\nEdited by a person.\n`;
    body = writeSection(body, 'history', historyWith(readSection(body, 'history'), record(2)));
    body = writeSection(body, 'history', historyWith(readSection(body, 'history'), record(3)));
    expect(historyAttempts(readSection(body, 'history'))).toEqual([1, 2, 3]);
    expect(body).toContain('Edited by a person.');
  });

  it('renders feedback inert and on one line, so it cannot split the table', () => {
    const row = historyRow(record(2, { feedback: 'a | b\n| 9 | forged @alice <b>' }));
    expect(row.split('\n')).toHaveLength(1);
    expect(row).not.toMatch(/@alice|<b>/);
    expect(historyAttempts(row)).toEqual([2]);
    // Only the row's own cell separators are bare pipes.
    expect(row.match(/(?<!\\)\|/g)).toHaveLength(8);
  });
});

describe('reply marker', () => {
  it('round-trips and reads nothing into look-alikes', () => {
    const marker = replyMarker('task_001', 2, 4_000_000_123);
    expect(parseReplyMarker(`Addressed in abc.\n\n${marker}\n`)).toEqual({
      task: 'task_001',
      attempt: 2,
      commentId: 4_000_000_123,
    });
    expect(parseReplyMarker('<!-- agent-coordinator:reply task=x attempt=0 comment=1 -->')).toBe(
      undefined,
    );
    expect(parseReplyMarker(null)).toBeUndefined();
  });
});
