import { describe, expect, it } from 'vitest';
import {
  decideIssueStop,
  type IssueNow,
  type IssueStopEvent,
  type IssueStopVerdict,
} from '../../../src/core/lifecycle/index.js';

const LABEL = 'agent';
const closedNow: IssueNow = { state: 'closed', labels: [LABEL] };
const unlabeledNow: IssueNow = { state: 'open', labels: ['bug'] };

/** docs/lifecycle.md step 11: the issue closed or its label removed, by whom, and whether undone since. */
describe('decideIssueStop', () => {
  it.each<{
    name: string;
    event: IssueStopEvent;
    now: IssueNow | null;
    expected: IssueStopVerdict['kind'];
  }>([
    ...(['admin', 'maintain', 'write'] as const).flatMap((senderRole) => [
      {
        name: `closed by ${senderRole}: cancelled`,
        event: { action: 'closed' as const, senderRole },
        now: closedNow,
        expected: 'cancel' as const,
      },
      {
        name: `label removed by ${senderRole}: cancelled`,
        event: { action: 'unlabeled' as const, senderRole },
        now: unlabeledNow,
        expected: 'cancel' as const,
      },
    ]),
    ...(['triage', 'read', 'none'] as const).flatMap((senderRole) => [
      {
        name: `closed by ${senderRole} (the issue's author, a triager, a bot): refused`,
        event: { action: 'closed' as const, senderRole },
        now: closedNow,
        expected: 'refuse' as const,
      },
      {
        name: `label removed by ${senderRole}: refused`,
        event: { action: 'unlabeled' as const, senderRole },
        now: unlabeledNow,
        expected: 'refuse' as const,
      },
    ]),
    {
      name: 'closed, but open again now: nothing',
      event: { action: 'closed', senderRole: 'write' },
      now: { state: 'open', labels: [LABEL] },
      expected: 'undone',
    },
    {
      name: 'label removed, but back now: nothing, whoever did it',
      event: { action: 'unlabeled', senderRole: 'triage' },
      now: { state: 'open', labels: [LABEL] },
      expected: 'undone',
    },
    {
      name: 'the issue unreadable now: decided by the sender alone',
      event: { action: 'closed', senderRole: 'admin' },
      now: null,
      expected: 'cancel',
    },
  ])('$name', ({ event, now, expected }) => {
    expect(decideIssueStop(event, now, LABEL).kind).toBe(expected);
  });

  it('names what was done and the role in the refusal', () => {
    expect(decideIssueStop({ action: 'unlabeled', senderRole: 'triage' }, null, LABEL)).toEqual({
      kind: 'refuse',
      reason:
        'removing the label does not cancel the agent-coordinator run: only people with write access can (your role: triage); the run goes on',
    });
    expect(decideIssueStop({ action: 'closed', senderRole: 'write' }, closedNow, LABEL)).toEqual({
      kind: 'cancel',
      why: 'issue closed',
    });
  });
});
