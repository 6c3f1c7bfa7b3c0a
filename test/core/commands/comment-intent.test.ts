import { describe, expect, it } from 'vitest';
import {
  commentFactsOf,
  commentIntent,
  type CommentFacts,
} from '../../../src/core/commands/index.js';
import { planMarker } from '../../../src/protocol/markers.js';
import { examplePayload } from '../../helpers/payloads.js';

const APP_ID = 4242;
const PLAN = `${planMarker(77)}\n\n\`\`\`yaml\ntasks: []\n\`\`\``;

function facts(more: Partial<CommentFacts>): CommentFacts {
  return {
    body: '',
    authorLogin: 'octocat',
    fromBot: false,
    viaAppId: undefined,
    onPullRequest: false,
    ...more,
  };
}

describe('what a new comment asks of the coordinator', () => {
  it.each([
    ['a person’s remark', facts({ body: 'Looks good to me' }), 'none'],
    ['an empty body', facts({ body: null }), 'none'],
    ['a command on a PR', facts({ body: '/approve', onPullRequest: true }), 'commands'],
    ['a command on an issue', facts({ body: 'please\n/retry a' }), 'commands'],
    ['a misspelt command (answered with a suggestion)', facts({ body: '/aprove' }), 'commands'],
    ['a command in a code block', facts({ body: '```\n/approve\n```' }), 'none'],
    ['a bot’s command', facts({ body: '/approve', fromBot: true, authorLogin: 'x[bot]' }), 'none'],
    [
      'the planner’s plan',
      facts({ body: PLAN, fromBot: true, authorLogin: 'github-actions[bot]' }),
      'plan',
    ],
    [
      'a plan written with this App’s token',
      facts({ body: PLAN, fromBot: true, authorLogin: 'ac[bot]', viaAppId: APP_ID }),
      'plan',
    ],
    [
      'a plan by another App',
      facts({ body: PLAN, fromBot: true, authorLogin: 'ac[bot]', viaAppId: APP_ID + 1 }),
      'none',
    ],
    [
      'a plan on a PR',
      facts({ body: PLAN, fromBot: true, authorLogin: 'github-actions[bot]', onPullRequest: true }),
      'none',
    ],
    [
      'the planner’s comment without the marker',
      facts({ body: 'no plan', fromBot: true, authorLogin: 'github-actions[bot]' }),
      'none',
    ],
    ['a person pasting a plan', facts({ body: PLAN }), 'none'],
  ] as const)('%s: %s', (_name, comment, kind) => {
    expect(commentIntent(comment, APP_ID).kind).toBe(kind);
  });

  it('carries what the handler needs: the plan’s workflow run, the parsed commands', () => {
    expect(
      commentIntent(
        facts({ body: PLAN, fromBot: true, authorLogin: 'github-actions[bot]' }),
        APP_ID,
      ),
    ).toEqual({ kind: 'plan', workflowRunId: 77 });
    const intent = commentIntent(facts({ body: '/approve', onPullRequest: true }), APP_ID);
    expect(intent.kind === 'commands' && intent.parsed.map((p) => p.ok)).toEqual([true]);
  });

  it('reads the facts from a real payload, and from anything else without throwing', () => {
    const payload = examplePayload<Record<string, unknown>>('issue_comment', 'created');
    const comment = payload.comment as { body: string; user: { login: string } };
    expect(commentFactsOf(payload)).toEqual({
      body: comment.body,
      authorLogin: comment.user.login,
      fromBot: false,
      viaAppId: undefined,
      onPullRequest: Boolean((payload.issue as { pull_request?: unknown }).pull_request),
    });
    expect(
      commentFactsOf({
        ...payload,
        sender: { type: 'Bot' },
        comment: { ...comment, performed_via_github_app: { id: APP_ID } },
      }),
    ).toMatchObject({ fromBot: true, viaAppId: APP_ID });
    for (const odd of [{}, { comment: null, issue: 5 }, { comment: { body: 7, user: 'x' } }])
      expect(commentFactsOf(odd)).toEqual({
        body: null,
        authorLogin: undefined,
        fromBot: false,
        viaAppId: undefined,
        onPullRequest: false,
      });
  });
});
