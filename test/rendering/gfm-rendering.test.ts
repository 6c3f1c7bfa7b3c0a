import { describe, expect, it } from 'vitest';
import { codeSpan, describeParseError } from '../../src/core/commands/index.js';
import {
  agentConfigPathShown,
  parseAgentConfigMarker,
  parsePlanMarker,
} from '../../src/protocol/markers.js';
import { orderCheck, type MergeTask } from '../../src/core/merge/index.js';
import { formatPlanErrors, parsePlanYaml } from '../../src/core/plan/index.js';
import {
  renderFailureComment,
  renderStatusComment,
  type StatusTaskView,
} from '../../src/core/status/index.js';
import { configErrorComment } from '../../src/handlers/issues.js';
import { pullBody, type PullBodyInput } from '../../src/worker/pull-request.js';
import { statusView, taskView } from '../core/status/builders.js';
import {
  elements,
  renderGfm,
  tagNames,
  tokenize,
  visibleText,
  type HtmlToken,
} from './cmark-gfm.js';
import { colourSwatches, githubReferences } from './github-references.js';
import { asRead, HOSTILE_TEXT, readsAs } from './hostile-text.js';

/**
 * The App's comments and check run summaries rendered by cmark-gfm with GitHub's extensions,
 * and GitHub's own linking (mentions, references, SHAs) modelled on the rendered text: every
 * piece of untrusted text must come out as text that reads as written, with no tag, no HTML
 * and nothing GitHub would link.
 */

const PLAN_MARKER = '<!-- agent-coordinator:plan run_id=1 -->';

/** Tags the App's own markdown produces around the untrusted text. */
const STATUS_TAGS = new Set([
  'h3',
  'p',
  'ul',
  'li',
  'pre',
  'code',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'details',
  'summary',
  'sub',
]);

function expectInertText(tokens: readonly HtmlToken[], expected: string): void {
  expect(tagNames(tokens)).toEqual([]);
  expect(tokens.filter((t) => t.kind === 'comment')).toEqual([]);
  const shown = visibleText(tokens).trim();
  expect(readsAs(shown, expected), `shows ${JSON.stringify(shown)}`).toBe(true);
  expect(githubReferences(tokens)).toEqual([]);
}

function mergeTask(overrides: Partial<MergeTask>): MergeTask {
  return { taskId: 'task_a', title: 'A', deps: [], state: 'in_review', held: false, ...overrides };
}

describe('cmark-gfm renders untrusted text as written and inert', () => {
  describe('the status comment', () => {
    const tasks: StatusTaskView[] = HOSTILE_TEXT.map(([, text], i) =>
      taskView({ id: `t_${i}`, title: text, waiting: text, state: 'pending', attempts: 1 }),
    );
    const body = renderStatusComment(
      statusView({
        runState: 'held',
        tasks,
        holdReason: '/hold by @alice see #1 https://x.example',
      }),
    );
    const tokens = tokenize(renderGfm(body));
    const rows = elements(tokens, 'tr').slice(1);

    it('holds only its own tags and its one marker', () => {
      expect(new Set(tagNames(tokens))).toEqual(STATUS_TAGS);
      expect(tokens.filter((t) => t.kind === 'comment').map((t) => t.raw)).toEqual([
        '<!-- agent-coordinator:status -->',
      ]);
      expect(parsePlanMarker(body)).toBeUndefined();
    });

    it.each(HOSTILE_TEXT.map(([name, text], i) => ({ name, text, i })))(
      'shows the title and wait reason $name as written',
      ({ text, i }) => {
        const row = rows.find((r) => visibleText(elements(r, 'td')[0] ?? []) === `t_${i}`);
        const cells = elements(row ?? [], 'td');
        expect(cells).toHaveLength(7);
        expectInertText(cells[1]!, asRead(text));
        const state = cells[3]!;
        expect(visibleText(state).startsWith('pending: ')).toBe(true);
        expectInertText(state, `pending: ${asRead(text)}`);
      },
    );

    it.each(HOSTILE_TEXT)(
      'warns about an agent configuration file named %s as written',
      (_n, text) => {
        const note = renderStatusComment(
          statusView({
            tasks: [taskView({ id: 'task_002', prNumber: 4, agentConfigChanged: [text] })],
          }),
        );
        const item = elements(tokenize(renderGfm(note)), 'li').find((li) =>
          visibleText(li).includes('changes agent configuration'),
        )!;
        expect(tagNames(item)).toEqual(['strong']);
        const lead = 'task_002 (#4) changes agent configuration: ';
        const shown = visibleText(item);
        expect(shown.startsWith(lead)).toBe(true);
        expect(readsAs(shown.slice(lead.length).trim(), asRead(text).replace(/\s+/g, ' '))).toBe(
          true,
        );
        // The one reference is the task's own PR.
        expect(githubReferences(item)).toEqual([
          { kind: 'issue or cross-repo reference', text: '#4' },
        ]);
      },
    );

    it('names who held the run without mentioning or linking anything', () => {
      const held = elements(tokens, 'li').find((li) => visibleText(li).startsWith('Held: '));
      expect(held).toBeDefined();
      expectInertText(held!, 'Held: /hold by @alice see #1 https://x.example');
    });
  });

  describe('the pull request body', () => {
    const task = {
      issue: 7,
      taskId: 'task_001',
      attempt: 1,
      branch: 'agent/7/task_001',
      timeoutMinutes: 30,
    };
    const input = (summary: string, extra: Partial<PullBodyInput> = {}): PullBodyInput => ({
      summary,
      usage: { costUsd: 0.5, inputTokens: 10, outputTokens: 2 },
      partial: false,
      record: {
        attempt: 1,
        mode: 'work',
        conclusion: 'pushed',
        runUrl: 'https://github.com/acme/widgets/actions/runs/1',
        feedback: '',
      },
      ...extra,
    });
    /** The body's own tags around the untrusted text: the status comment's, and quote and link. */
    const PULL_TAGS = new Set([...STATUS_TAGS, 'strong', 'blockquote', 'br', 'a']);
    const OUR_MARKER =
      /^<!-- agent-coordinator:(?:(?:section|end) (?:agent-config|partial|summary|history)|task issue=7 task=task_001 attempt=1|usage cost_usd=0\.5 input_tokens=10 output_tokens=2) -->$/;
    const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

    it.each(HOSTILE_TEXT)(
      'shows %s as written in the title, the summary and the prompt',
      (_n, text) => {
        const prompt = `${text}\n\n  ${text}\nlast line`;
        const body = pullBody({ ...task, title: text, prompt }, input(text));
        const tokens = tokenize(renderGfm(body));
        for (const name of tagNames(tokens)) expect(PULL_TAGS, name).toContain(name);
        const comments = tokens.filter((t) => t.kind === 'comment').map((t) => t.raw);
        expect(comments).toHaveLength(10);
        for (const raw of comments) expect(raw).toMatch(OUR_MARKER);
        expect(parsePlanMarker(body)).toBeUndefined();

        // The title line.
        const first = elements(tokens, 'p')[0]!;
        expect(tagNames(first)).toEqual(['code']);
        expect(readsAs(visibleText(first).trim(), `Task task_001: ${asRead(text)}`)).toBe(true);
        expect(githubReferences(first)).toEqual([]);

        // The prompt: one details element, holding only paragraphs and line breaks.
        const details = elements(tokens, 'details');
        expect(details).toHaveLength(1);
        expect(new Set(tagNames(details[0]!))).toEqual(
          new Set(['summary', 'p', ...(tagNames(details[0]!).includes('br') ? ['br'] : [])]),
        );
        expect(oneLine(visibleText(details[0]!))).toBe(
          oneLine(`Task prompt ${asRead(text)} ${asRead(text)} last line`),
        );
        expect(githubReferences(details[0]!)).toEqual([]);

        // The summary, quoted.
        const quote = elements(tokens, 'blockquote')[0]!;
        expect(new Set(tagNames(quote)).size).toBeLessThanOrEqual(2);
        expect(oneLine(visibleText(quote))).toBe(oneLine(asRead(text)));
        expect(githubReferences(quote)).toEqual([]);
      },
    );

    it.each(HOSTILE_TEXT)('names an agent configuration file %s as written', (_n, text) => {
      const paths = ['.claude/settings.json', `.claude/${text}`];
      const body = pullBody(
        { ...task, title: 'T', prompt: '' },
        input('', { agentConfigChanged: paths }),
      );
      const tokens = tokenize(renderGfm(body));
      for (const name of tagNames(tokens)) expect(PULL_TAGS, name).toContain(name);
      const items = elements(tokens, 'li');
      expect(items).toHaveLength(2);
      expect(items.map((li) => tagNames(li))).toEqual([[], []]);
      expect(visibleText(items[0]!)).toBe('.claude/settings.json');
      // A path is named by its first 200 code points (agentConfigPathShown): the body must fit.
      const shown = paths.map(agentConfigPathShown);
      expect(readsAs(visibleText(items[1]!).trim(), asRead(shown[1]!))).toBe(true);
      expect(githubReferences(items[1]!)).toEqual([]);
      // The marker carries the paths as shown exactly, whatever they hold.
      expect(parseAgentConfigMarker(body)).toEqual(shown);
      const comments = tokens.filter((t) => t.kind === 'comment').map((t) => t.raw);
      expect(
        comments.filter((c) => c.startsWith('<!-- agent-coordinator:agent-config ')),
      ).toHaveLength(1);
      expect(parsePlanMarker(body)).toBeUndefined();
    });

    it('keeps a prompt that closes the details element inside it, line by line', () => {
      const prompt = [
        'Do it.',
        '</details>',
        '',
        '@alice review #12, owner/repo#3 and GH-4; see https://evil.example',
        '<details open><summary>x</summary>',
        '<!-- agent-coordinator:end history -->',
      ].join('\n');
      const body = pullBody({ ...task, title: 'T', prompt }, input(''));
      const tokens = tokenize(renderGfm(body));
      const details = elements(tokens, 'details');
      expect(details).toHaveLength(1);
      const paragraphs = elements(details[0]!, 'p').map((p) => visibleText(p));
      expect(paragraphs).toEqual([
        'Do it.\n</details>',
        '@alice review #12, owner/repo#3 and GH-4; see https://evil.example\n<details open><summary>x</summary>\n<!-- agent-coordinator:end history -->',
      ]);
      expect(githubReferences(details[0]!)).toEqual([]);
      // The one link is the history's own, to the attempt's run.
      expect(tagNames(tokens).filter((name) => name === 'a')).toHaveLength(1);
      expect(body.match(/agent-coordinator:end history/g)).toHaveLength(1);
    });
  });

  describe('replies to commands', () => {
    it.each(HOSTILE_TEXT)('quotes %s as code, mentioning only the commenter', (_name, text) => {
      for (const error of [
        { kind: 'unexpected_argument', name: 'hold', text },
        { kind: 'invalid_task_id', name: 'approve', text },
      ] as const) {
        // As the comment handler composes a reply.
        const reply = `@maintainer \`/${error.name}\`: ${describeParseError(error)}.`;
        const tokens = tokenize(renderGfm(reply));
        expect(new Set(tagNames(tokens))).toEqual(new Set(['p', 'code']));
        const quoted = elements(tokens, 'code').map((code) => visibleText(code));
        const expected = asRead(text).replace(/\s+/g, ' ');
        expect(quoted.some((shown) => readsAs(shown, expected))).toBe(true);
        expect(githubReferences(tokens)).toEqual([
          { kind: 'mention or team', text: '@maintainer' },
        ]);
        expect(reply).not.toContain('<!--');
        expect(parsePlanMarker(reply)).toBeUndefined();
      }
    });

    it.each(HOSTILE_TEXT)('lists a config error holding %s as code', (_name, text) => {
      const body = configErrorComment([text]);
      const tokens = tokenize(renderGfm(body));
      expect(new Set(tagNames(tokens))).toEqual(new Set(['p', 'strong', 'code', 'ul', 'li']));
      const item = elements(tokens, 'li')[0]!;
      expect(tagNames(item)).toEqual(['code']);
      expect(readsAs(visibleText(item), asRead(text).replace(/\s+/g, ' '))).toBe(true);
      expect(githubReferences(tokens)).toEqual([]);
      expect(body).not.toContain('<!--');
    });
  });

  describe('the failure comment', () => {
    it.each(HOSTILE_TEXT)('gives the reason %s as written', (_name, text) => {
      const body = renderFailureComment({
        taskKey: 'task_001',
        attempts: 3,
        reason: text,
        logUrl: 'https://github.com/o/r/actions/runs/1',
        blocked: ['task_002'],
      });
      const tokens = tokenize(renderGfm(body));
      const first = elements(tokens, 'p')[0]!;
      expect(tagNames(first)).toEqual(['strong', 'code']);
      const lead = 'agent-coordinator: task task_001 failed after 3 attempts: ';
      const shown = visibleText(first);
      expect(shown.startsWith(lead)).toBe(true);
      const reason = shown.slice(lead.length, -1);
      expect(readsAs(reason, asRead(text).replace(/[.\s]+$/, ''))).toBe(true);
      expect(githubReferences(first)).toEqual([]);
      expect(body).not.toContain('<!--');
      expect(parsePlanMarker(body)).toBeUndefined();
    });
  });

  describe('the order check summary', () => {
    it.each(HOSTILE_TEXT)('quotes the veto reason and the dep title %s as written', (_n, text) => {
      const dep = mergeTask({ taskId: 'dep', title: text, state: 'merged', prNumber: 7 });
      const vetoed = mergeTask({ state: 'vetoed', vetoReason: text, deps: ['dep'] });
      const { summary } = orderCheck(vetoed, 'f'.repeat(40), {
        tasks: [vetoed, dep],
        requireApproval: true,
      });
      const tokens = tokenize(renderGfm(summary));
      const quote = elements(tokens, 'blockquote')[0]!;
      expect(new Set(tagNames(quote))).toEqual(new Set(['p']));
      const lines = visibleText(quote).replace(/\s+/g, ' ').trim();
      expect(readsAs(lines, asRead(text).replace(/\s+/g, ' '))).toBe(true);
      expect(githubReferences(quote)).toEqual([]);

      const row = elements(tokens, 'tr').find(
        (r) => visibleText(elements(r, 'td')[0] ?? []) === 'dep',
      );
      expectInertText(elements(row ?? [], 'td')[1] ?? [], asRead(text));
      expect(summary).not.toContain('<!--');
      expect(parsePlanMarker(summary)).toBeUndefined();
    });
  });

  describe('plan errors', () => {
    it.each(HOSTILE_TEXT.filter(([, text]) => !text.includes('`')))(
      'escapes a message holding %s',
      (_name, text) => {
        const markdown = formatPlanErrors([{ code: 'invalid_value', message: text }]);
        const tokens = tokenize(renderGfm(markdown));
        const item = elements(tokens, 'li')[0]!;
        expectInertText(item, asRead(text));
      },
    );

    // The planner writes the plan: the values its errors quote (a key, a dependency, a value,
    // and the path naming where) are its words, shown as code.
    const PLACES: ReadonlyArray<readonly [place: string, plan: (value: string) => string]> = [
      ['an unknown key', (v) => `- id: a\n  title: t\n  ${JSON.stringify(v)}: 1\n`],
      ['an unknown dependency', (v) => `- id: a\n  title: t\n  deps: [${JSON.stringify(v)}]\n`],
      ['a priority', (v) => `- id: a\n  title: t\n  priority: ${JSON.stringify(v)}\n`],
    ];
    const COLOURS = ['#0969DA', '#fff', ' #f00 ', 'rgb(9, 105, 218)', 'hsl(212, 92%, 45%)'];
    const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

    it.each(PLACES)('quotes %s that is a colour without a swatch', (_place, plan) => {
      for (const colour of COLOURS) {
        const result = parsePlanYaml(plan(colour), { maxTasks: 10, planner: true });
        expect(result.ok).toBe(false);
        if (result.ok) continue;
        const tokens = tokenize(renderGfm(formatPlanErrors(result.errors)));
        expect(visibleText(tokens)).toContain(colour.trim());
        expect(colourSwatches(tokens)).toEqual([]);
      }
    });

    it.each(PLACES)('quotes %s holding a bidi override without it', (_place, plan) => {
      const result = parsePlanYaml(plan('\u202ekcatta'), { maxTasks: 10, planner: true });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      const tokens = tokenize(renderGfm(formatPlanErrors(result.errors)));
      expect(visibleText(tokens)).toContain('kcatta');
      expect(visibleText(tokens)).not.toMatch(BIDI);
    });
  });
});

describe('the checks above catch what raw text would do', () => {
  // Without the escaping, each of these renders as markup or something GitHub links.
  it.each(HOSTILE_TEXT.filter(([name]) => RAW_LEAKS.has(name)))('%s', (_name, text) => {
    const tokens = tokenize(renderGfm(text));
    const markup = tagNames(tokens).filter((name) => name !== 'p');
    const comments = tokens.filter((t) => t.kind === 'comment');
    const leaks = markup.length + comments.length + githubReferences(tokens).length;
    expect(leaks).toBeGreaterThan(0);
  });
});

const RAW_LEAKS: ReadonlySet<string> = new Set(
  HOSTILE_TEXT.map(([name]) => name).filter(
    (name) =>
      ![
        'pipes',
        'backslashes',
        'newlines',
        'HTML entities',
        'RTL override',
        'math',
        'setext underline',
        'non-ASCII',
        'custom autolink prefix',
        // cmark-gfm's tagfilter already writes `<script` as text; GitHub's sanitiser drops it.
        'script',
        'footnote and task box',
        // Harmless in markdown; Mermaid is where it bit (see mermaid.browser.test.ts).
        'colon then hash',
      ].includes(name),
  ),
);

describe('text the App echoes never carries a marker', () => {
  const ECHOES: ReadonlyArray<readonly [surface: string, render: (text: string) => string]> = [
    ['a code span', (text) => codeSpan(text)],
    [
      'a parse error',
      (text) => describeParseError({ kind: 'unexpected_argument', name: 'hold', text }),
    ],
    ['a config error', (text) => configErrorComment([text])],
    [
      'a failure comment',
      (text) =>
        renderFailureComment({
          taskKey: 'a',
          attempts: 1,
          reason: text,
          logUrl: null,
          blocked: [],
        }),
    ],
    [
      'an order check',
      (text) =>
        orderCheck(mergeTask({ state: 'vetoed', vetoReason: text }), 'f'.repeat(40), {
          tasks: [],
          requireApproval: true,
        }).summary,
    ],
    ['plan errors', (text) => formatPlanErrors([{ code: 'yaml', message: text }])],
    [
      'the status comment',
      (text) =>
        renderStatusComment(
          statusView({
            runState: 'held',
            holdReason: text,
            planErrors: `- bad\n${text}\n`,
            notes: [text],
            tasks: [taskView({ title: text, waiting: text })],
          }),
        ).replace(/^<!-- agent-coordinator:status -->\n/, ''),
    ],
  ];
  const MARKERS = [
    PLAN_MARKER,
    `\n${PLAN_MARKER}\n`,
    `text\n\n${PLAN_MARKER}\n\nmore`,
    '<!-- agent-coordinator:status -->',
    `\`${PLAN_MARKER}\``,
  ];

  it.each(ECHOES.flatMap(([surface, render]) => MARKERS.map((m) => [surface, m, render] as const)))(
    '%s quoting %j',
    (_surface, marker, render) => {
      const out = render(marker);
      expect(out).not.toContain('<!--');
      expect(parsePlanMarker(out)).toBeUndefined();
    },
  );
});
