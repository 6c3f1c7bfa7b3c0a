import { describe, expect, it } from 'vitest';
import { decideUpdateHold, type UpdateHoldInput } from '../../../src/core/merge/index.js';
import { WORD_JOINER as WJ } from '../../../src/core/inert-markdown.js';

const HEAD = 'def5678aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const WORKFLOW =
  'refusing to allow a GitHub App to create or update workflow .github/workflows/ci.yml without workflows permission';

const input = (over: Partial<UpdateHoldInput> = {}): UpdateHoldInput => ({
  head: HEAD,
  headRef: 'agent/7/task_002',
  base: 'agent/7/task_001',
  message: WORKFLOW,
  stacked: true,
  task: { state: 'approved', approvedSha: HEAD },
  ...over,
});

/** GitHub refused the App the update of a PR's branch (a 403): what holding the PR for a person does. */
describe('decideUpdateHold', () => {
  it.each<{ name: string; over: Partial<UpdateHoldInput>; withdraw: unknown }>([
    {
      name: 'a stacked child in review: its approval is withdrawn by the transition',
      over: {},
      withdraw: { move: 'approval withdrawn' },
    },
    {
      name: 'a stacked child in review with an older approval: withdrawn too',
      over: { task: { state: 'in_review', approvedSha: 'abc' } },
      withdraw: { move: 'approval withdrawn' },
    },
    {
      name: 'a stacked child not in review (a retry’s backoff): withdrawn as fields',
      over: { task: { state: 'pending', approvedSha: HEAD } },
      withdraw: {},
    },
    {
      name: 'a stacked child never approved: nothing to withdraw',
      over: { task: { state: 'in_review', approvedSha: null } },
      withdraw: undefined,
    },
    {
      name: 'a plain PR keeps its approval (it cannot merge while behind)',
      over: { stacked: false, base: 'main' },
      withdraw: undefined,
    },
  ])('$name', ({ over, withdraw }) => {
    expect(decideUpdateHold(input(over)).withdrawApproval).toEqual(withdraw);
  });

  it('tells the PR once per head: a marker first, what GitHub said, and what a person does', () => {
    const { comment } = decideUpdateHold(input());
    expect(comment.marker).toBe(`<!-- agent-coordinator:update-refused head=${HEAD} -->`);
    expect(comment.body.startsWith(comment.marker)).toBe(true);
    const text = comment.body.slice(comment.marker.length);
    expect(text).toContain(
      'GitHub would not let the App bring this branch up to date with agent/7/task_001:',
    );
    expect(text).toContain(
      `> refusing to allow a GitHub App to create or update workflow .github/workflows/ci.yml without workflows permission`,
    );
    expect(text).toContain('Its approval is withdrawn');
    expect(text).toContain(
      'merges agent/7/task_001 into agent/7/task_002 and pushes; the coordinator goes on from that push.',
    );
    expect(decideUpdateHold(input({ stacked: false })).comment.body).not.toContain('approval');
  });

  it('renders GitHub’s message and the branch names inert', () => {
    const { comment } = decideUpdateHold(
      input({ message: 'no @alice #1 <b>x</b>\n<!-- agent-coordinator:status -->', base: 'm`a' }),
    );
    const text = comment.body.slice(comment.marker.length);
    expect(text).toContain(
      `> no @${WJ}alice #${WJ}1 &lt;b&gt;x&lt;/b&gt; &lt;!-- agent-coordinator:${WJ}status --&gt;`,
    );
    expect(text).toContain('up to date with m\\`a:');
    expect(text).not.toContain('<!--');
  });
});
