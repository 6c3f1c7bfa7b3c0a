import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTAINER, OWNER, REPO, startScenario, type Scenario } from '../e2e/harness.js';
import { TEST_WEBHOOK_SECRET } from '../helpers/app.js';
import { prOf, taskState, tasksBlock } from './security-helpers.js';

/**
 * Correctly signed but malformed payloads, for every event the app handles: the answer is
 * 2xx (stored) or 4xx, never a 5xx or a crash, and afterwards the app is healthy and a normal
 * labelled issue still goes from label to merge. Payloads start from real deliveries of the
 * GitHub double and are bent by fast-check: fields dropped or nulled, wrong types, huge and
 * binary strings, numbers past 2^53, deep nesting.
 */

const EVENTS = [
  'issues',
  'issue_comment',
  'pull_request',
  'pull_request_review',
  'check_run',
  'check_suite',
  'workflow_run',
  'merge_group',
  'installation',
] as const;
type EventName = (typeof EVENTS)[number];
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON text the test splices in where JSON.stringify cannot say it: integers past 2^53. */
const BIG_INTEGERS = [
  '9007199254740993',
  '123456789012345678901234567890',
  '-99999999999999999999',
];
const RAW = (i: number) => `__raw_number_${i}__`;

const MUTATIONS = [
  'delete',
  'null',
  'string',
  'huge',
  'binary',
  'big',
  'float',
  'negative',
  'bool',
  'array',
  'object',
  'deep',
] as const;
type Mutation = (typeof MUTATIONS)[number];

function paths(value: Json, prefix: string[] = [], depth = 0, out: string[][] = []): string[][] {
  if (depth > 5 || value === null || typeof value !== 'object') return out;
  const entries = Array.isArray(value)
    ? value.slice(0, 3).map((v, i) => [String(i), v] as const)
    : Object.entries(value);
  for (const [key, child] of entries) {
    out.push([...prefix, key]);
    paths(child, [...prefix, key], depth + 1, out);
  }
  return out;
}

function mutate(payload: Json, path: string[], kind: Mutation, text: string, n: number): Json {
  if (path.length === 0 || payload === null || typeof payload !== 'object') return payload;
  let parent = payload as Record<string, Json>;
  for (const key of path.slice(0, -1)) {
    const next = parent[key];
    if (next === null || typeof next !== 'object') return payload;
    parent = next as Record<string, Json>;
  }
  const key = path[path.length - 1]!;
  let deep: Json = 'bottom';
  for (let i = 0; i < 2_000; i++) deep = [deep];
  const values: Record<Exclude<Mutation, 'delete'>, Json> = {
    null: null,
    string: text,
    huge: text.repeat(Math.ceil(200_000 / Math.max(1, text.length))) || 'x'.repeat(200_000),
    binary: text,
    big: RAW(n % BIG_INTEGERS.length),
    float: n + 0.5,
    negative: -n - 1,
    bool: n % 2 === 0,
    array: [text, n],
    object: { id: text, login: n },
    deep,
  };
  if (kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else parent[key] = values[kind];
  return payload;
}

function raw(payload: Json): string {
  let body = JSON.stringify(payload);
  BIG_INTEGERS.forEach((digits, i) => {
    body = body.replaceAll(`"${RAW(i)}"`, digits);
  });
  return body;
}

describe('signed but malformed webhook payloads', () => {
  let s: Scenario;
  const seeds = new Map<EventName, Json>();
  let statuses: number[] = [];

  const send = async (event: string, body: string) => {
    const response = await fetch(`${s.app.url}/api/github/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': event,
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': await sign(TEST_WEBHOOK_SECRET, body),
      },
      body,
    });
    await response.text();
    statuses.push(response.status);
    return response.status;
  };
  const acceptable = (status: number) =>
    (status >= 200 && status < 300) || (status >= 400 && status < 500);

  beforeAll(async () => {
    // Real deliveries of every event, from one run through the merge queue.
    s = await startScenario();
    await s.double.enableMergeQueue(REPO, 'main');
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await s.double.openIssue(REPO, {
      title: 'Seed',
      body: tasksBlock([['a', 'A']]),
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    const pr = prOf(s, issue, 'a')!;
    await s.double.setCheck(REPO, pr.head.sha, 'ci', 'completed', 'success');
    await s.double.approvePr(REPO, pr.number, MAINTAINER);
    await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
    await s.settle();
    await s.double.processMergeQueue(REPO, 'main');
    await s.settle();
    expect(await taskState(s, issue, 'a')).toBe('merged');

    for (const event of EVENTS) {
      const found = s.double.deliveries({ event }).at(-1);
      if (found) seeds.set(event, found.payload as Json);
    }
    const installation = (s.double.deliveries()[0]!.payload.installation as { id: number }).id;
    // Installation events are the one place the app takes a repository's name from: the seed
    // names another repository, so a fuzzed name cannot rename the one the last test uses.
    seeds.set('installation', {
      action: 'created',
      installation: { id: installation, account: { login: OWNER, id: 1, type: 'Organization' } },
      repositories: [
        {
          id: 1_000_001,
          name: 'fuzzed',
          full_name: `${OWNER}/fuzzed`,
          private: false,
          node_id: 'R_1',
        },
      ],
      sender: { login: MAINTAINER, id: 2, type: 'User' },
    });
    expect([...seeds.keys()].sort()).toEqual([...EVENTS].sort());
  });
  afterAll(async () => s?.close());

  it.each(EVENTS)('%s: empty, null repository, wrong top-level types', async (event) => {
    statuses = [];
    const seed = seeds.get(event) as Record<string, Json>;
    const bodies = [
      '{}',
      JSON.stringify({ ...seed, repository: null }),
      JSON.stringify({ ...seed, repository: null, installation: null, sender: null }),
      JSON.stringify({ ...seed, action: 42 }),
      JSON.stringify({ action: seed.action, [Object.keys(seed).find((k) => k !== 'action')!]: 7 }),
      JSON.stringify({ ...seed, installation: { id: RAW(0) } }).replace(
        `"${RAW(0)}"`,
        BIG_INTEGERS[0]!,
      ),
      '[]',
      '"text"',
      '{"unterminated": ',
    ];
    for (const body of bodies) await send(event, body);
    expect(statuses.filter((status) => !acceptable(status))).toEqual([]);
    await s.app.whenIdle();
  });

  it('answers 2xx or 4xx to 100 fuzzed payloads, then stays healthy', async () => {
    statuses = [];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...EVENTS),
        fc.array(
          fc.record({
            at: fc.nat(),
            kind: fc.constantFrom(...MUTATIONS),
            text: fc.oneof(
              fc.string({ maxLength: 40 }),
              fc.string({ unit: 'binary', maxLength: 40 }),
              fc.constantFrom('agent', 'agent/1/a', '/approve', '', '\u0000', '\ud800'),
            ),
            n: fc.nat({ max: 1_000 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (event, mutations) => {
          let payload = structuredClone(seeds.get(event)!) as Json;
          for (const m of mutations) {
            const all = paths(payload);
            if (all.length === 0) break;
            payload = mutate(payload, all[m.at % all.length]!, m.kind, m.text, m.n);
          }
          const status = await send(event, raw(payload));
          expect(acceptable(status), `status ${status}`).toBe(true);
        },
      ),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 100),
        seed: Number(process.env.FUZZ_SEED ?? 20_251_130),
      },
    );
    await s.app.whenIdle();
    const health = await fetch(`${s.app.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', database: 'ok' });
    expect(statuses.some((status) => status === 202)).toBe(true);
  });

  it('still takes a labelled issue from label to merge', async () => {
    const issue = await s.double.openIssue(REPO, {
      title: 'After the fuzz',
      body: tasksBlock([['b', 'B']]),
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    const pr = prOf(s, issue, 'b')!;
    await s.double.comment(REPO, pr.number, '/approve', MAINTAINER);
    await s.settle();
    await s.double.processMergeQueue(REPO, 'main');
    await s.settle();
    expect(await taskState(s, issue, 'b')).toBe('merged');
    expect(s.double.issue(REPO, issue)?.state).toBe('closed');
    s.double.assertNoViolations();
  });
});
