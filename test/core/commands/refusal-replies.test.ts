import { describe, expect, it } from 'vitest';
import {
  mayReplyToRefusal,
  REFUSAL_REPLY_LIMITS,
  type RefusalRepliesSent,
} from '../../../src/core/commands/index.js';

const none: RefusalRepliesSent = { toPersonOnIssue: 0, toPerson: 0, inInstallation: 0 };
const L = REFUSAL_REPLY_LIMITS;

/** docs/commands.md, "Answers": the budget of refusal replies in an hour. */
describe('mayReplyToRefusal', () => {
  it.each<{ name: string; sent: RefusalRepliesSent; expected: boolean }>([
    { name: 'nothing sent yet: answered', sent: none, expected: true },
    {
      name: 'answered elsewhere, below every limit: answered',
      sent: {
        toPersonOnIssue: 0,
        toPerson: L.perPerson - 1,
        inInstallation: L.perInstallation - 1,
      },
      expected: true,
    },
    {
      name: 'this person answered on this issue already: not answered',
      sent: { toPersonOnIssue: 1, toPerson: 1, inInstallation: 1 },
      expected: false,
    },
    {
      name: 'this person answered on as many issues as allowed: not answered',
      sent: { toPersonOnIssue: 0, toPerson: L.perPerson, inInstallation: L.perPerson },
      expected: false,
    },
    {
      name: 'the installation answered as many as allowed, to others: not answered',
      sent: { toPersonOnIssue: 0, toPerson: 0, inInstallation: L.perInstallation },
      expected: false,
    },
  ])('$name', ({ sent, expected }) => {
    expect(mayReplyToRefusal(sent)).toBe(expected);
  });

  it('keeps all refusal replies a small share of the 500 content writes an hour', () => {
    expect(L.perInstallation).toBeLessThanOrEqual(500 / 10);
    expect(L.perPersonAndIssue).toBe(1);
  });
});
