import { describe, expect, it } from 'vitest';
import {
  commentFactsOf,
  commentIntent,
  type CommentFacts,
} from '../../../src/core/commands/index.js';
import { planMarker } from '../../../src/protocol/markers.js';
import { examplePayload } from '../../helpers/payloads.js';

const APP_ID = 4242;
/** The App GitHub names in `performed_via_github_app` for the Actions bot's comments. */
const ACTIONS_APP_ID = 15368;
const PLAN = `${planMarker(77)}\n\n\`\`\`yaml\ntasks: []\n\`\`\``;

function facts(more: Partial<CommentFacts>): CommentFacts {
  return {
    body: '',
    authorLogin: 'octocat',
    fromBot: false,
    authorIsBot: false,
    viaAppId: undefined,
    onPullRequest: false,
    ...more,
  };
}

/** A comment written with this App's installation token: by its bot, performed via the App. */
function byApp(more: Partial<CommentFacts>): CommentFacts {
  return facts({
    authorLogin: 'agent-coordinator[bot]',
    fromBot: true,
    authorIsBot: true,
    viaAppId: APP_ID,
    ...more,
  });
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
    ['the planner’s plan, written with this App’s token', byApp({ body: PLAN }), 'plan'],
    [
      'a plan by the Actions bot (GITHUB_TOKEN: performed via the github-actions App)',
      byApp({ body: PLAN, authorLogin: 'github-actions[bot]', viaAppId: ACTIONS_APP_ID }),
      'none',
    ],
    [
      'a plan by the Actions bot with no App named',
      byApp({ body: PLAN, authorLogin: 'github-actions[bot]', viaAppId: undefined }),
      'none',
    ],
    ['a plan by another App', byApp({ body: PLAN, viaAppId: APP_ID + 1 }), 'none'],
    [
      'a plan by a person acting through this App (a user token)',
      facts({ body: PLAN, fromBot: true, viaAppId: APP_ID }),
      'none',
    ],
    ['a plan on a PR', byApp({ body: PLAN, onPullRequest: true }), 'none'],
    ['the App’s comment without the marker', byApp({ body: 'no plan' }), 'none'],
    ['a person pasting a plan', facts({ body: PLAN }), 'none'],
    ['a person pasting a plan through this App', facts({ body: PLAN, viaAppId: APP_ID }), 'none'],
  ] as const)('%s: %s', (_name, comment, kind) => {
    expect(commentIntent(comment, APP_ID).kind).toBe(kind);
  });

  it('carries what the handler needs: the plan’s workflow run, the parsed commands', () => {
    expect(commentIntent(byApp({ body: PLAN }), APP_ID)).toEqual({
      kind: 'plan',
      workflowRunId: 77,
    });
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
      authorIsBot: false,
      viaAppId: undefined,
      onPullRequest: Boolean((payload.issue as { pull_request?: unknown }).pull_request),
    });
    expect(
      commentFactsOf({
        ...payload,
        sender: { type: 'Bot' },
        comment: {
          ...comment,
          user: { login: 'agent-coordinator[bot]', type: 'Bot' },
          performed_via_github_app: { id: APP_ID },
        },
      }),
    ).toMatchObject({ fromBot: true, authorIsBot: true, viaAppId: APP_ID });
    for (const odd of [{}, { comment: null, issue: 5 }, { comment: { body: 7, user: 'x' } }])
      expect(commentFactsOf(odd)).toEqual({
        body: null,
        authorLogin: undefined,
        fromBot: false,
        authorIsBot: false,
        viaAppId: undefined,
        onPullRequest: false,
      });
  });
});
