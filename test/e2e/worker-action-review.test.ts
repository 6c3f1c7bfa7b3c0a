import { afterEach, describe, expect, it } from 'vitest';
import { replyMarker } from '../../src/protocol/markers.js';
import { MAINTAINER, REPO, startRun, taskOf } from './harness.js';
import { startRealWorkerScenario, type RealWorkerScenario } from './real-worker.js';

const BRANCH = 'agent/1/a';

// Stands in for Claude Code. Work: writes src/app.ts, twelve numbered lines. Fix: reads the
// threads from the prompt's "### Thread n: <path>, line(s) ..." headings and rewrites the last
// line each one is on, as an agent addressing them would.
const FAKE_AGENT = String.raw`
const { readFileSync, writeFileSync, mkdirSync } = require('node:fs');
const prompt = readFileSync(0, 'utf8');
const threads = [...prompt.matchAll(/^### Thread \d+: (\S+), lines? (?:\d+-)?(\d+)/gm)];
if (threads.length === 0) {
  mkdirSync('src', { recursive: true });
  writeFileSync('src/app.ts', Array.from({ length: 12 }, (_, i) => 'line ' + (i + 1) + '\n').join(''));
}
for (const [, path, line] of threads) {
  const lines = readFileSync(path, 'utf8').split('\n');
  lines[Number(line) - 1] += ' (fixed)';
  writeFileSync(path, lines.join('\n'));
}
console.log(JSON.stringify({
  type: 'result', subtype: 'success', is_error: false,
  result: threads.length ? 'Addressed ' + threads.length + ' threads.' : 'Wrote src/app.ts.',
  total_cost_usd: 0.25,
  usage: { input_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 20 },
}));
`;

type Pull = { number: number; merged?: boolean; head: { ref: string; sha: string } };

/**
 * docs/worker.md "Answering the review", with the committed worker bundle: a review asking for
 * changes goes back to the worker, which pushes its fix and replies in each thread.
 */
describe('the worker action answers a review', () => {
  let scenario: RealWorkerScenario | undefined;
  afterEach(() => scenario?.close());

  it('pushes a fix for a "request changes" review, replies in each of its three threads with the commit, and merges after a new approval', async () => {
    scenario = await startRealWorkerScenario(FAKE_AGENT);
    const { s, runs } = scenario;
    const pr = () => (s.double.pulls(REPO) as Pull[]).find((p) => p.head.ref === BRANCH)!;

    const issue = await startRun(s);
    const first = pr();
    await s.double.review(REPO, first.number, {
      event: 'REQUEST_CHANGES',
      body: 'Needs a few changes.',
      by: MAINTAINER,
      comments: [
        { path: 'src/app.ts', line: 2, body: 'Rename this.' },
        { path: 'src/app.ts', startLine: 4, line: 5, body: 'Split these lines.' },
        { path: 'src/app.ts', line: 9, body: 'Off by one here.' },
      ],
    });
    await s.settle();

    expect(runs.filter((r) => r.conclusion !== 'success').map((r) => r.log)).toEqual([]);
    const modes = s.double
      .runs(REPO)
      .filter((r) => r.head_branch === BRANCH && r.inputs.mode !== undefined)
      .map((r) => r.inputs.mode);
    expect(modes).toEqual(['work', 'fix']);
    expect(runs[1]!.log).toContain('answered 3 review thread(s)');
    const fixed = pr().head.sha;
    expect(fixed).not.toBe(first.head.sha);
    expect(s.double.file(REPO, BRANCH, 'src/app.ts')).toContain('line 2 (fixed)\n');

    // Each thread: the reviewer's comment, then the worker's reply naming the fix commit.
    const threads = s.double.reviewThreads(REPO, first.number);
    expect(threads).toHaveLength(3);
    for (const thread of threads) {
      const [root, reply, ...rest] = thread.comments;
      expect(rest).toEqual([]);
      expect(root!.user).toBe(MAINTAINER);
      expect(reply).toMatchObject({ inReplyTo: root!.id, user: 'agent-coordinator[bot]' });
      expect(reply!.body).toContain(`Addressed in ${fixed}.`);
      expect(reply!.body).toContain(replyMarker('a', 2, root!.id));
    }
    // The reviewer who asked for changes is asked again; the task waits for a new approval.
    expect(s.double.requestedReviewers(REPO, first.number)).toEqual([MAINTAINER]);
    expect((await taskOf(s, issue, 'a'))?.state).toBe('in_review');

    await s.double.review(REPO, first.number, { event: 'APPROVE', by: MAINTAINER });
    await s.settle();
    expect(pr().merged).toBe(true);
    expect((await taskOf(s, issue, 'a'))?.state).toBe('merged');
    expect(runs).toHaveLength(2);
  }, 120_000);
});
