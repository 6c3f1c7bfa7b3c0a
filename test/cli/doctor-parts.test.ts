import { describe, expect, it } from 'vitest';
import { compareGrants, readAppManifest } from '../../src/cli/doctor/permissions.js';
import { formatReport, ok, problem, unknown } from '../../src/cli/doctor/report.js';
import {
  compareInputs,
  findActionPin,
  readWorkflow,
  versionDistance,
  WORKER_INPUT_NAMES,
} from '../../src/cli/doctor/workflow.js';

describe('doctor parts', () => {
  it('compares an installation with app.yml: lower levels and missing events are named', async () => {
    const manifest = await readAppManifest();
    expect(manifest.permissions).toMatchObject({ merge_queues: 'write', metadata: 'read' });
    expect(manifest.events).toContain('merge_group');
    const all = {
      permissions: { ...manifest.permissions, administration: 'read' },
      events: manifest.events,
    };
    expect(compareGrants(manifest, all)).toEqual({ permissions: [], events: [] });
    const short = compareGrants(manifest, {
      permissions: { ...manifest.permissions, pull_requests: 'read', merge_queues: undefined },
      events: manifest.events.filter((e) => e !== 'merge_group'),
    });
    expect(short.permissions).toEqual([
      'pull_requests: has read, needs write',
      'merge_queues: has none, needs write',
    ]);
    expect(short.events).toEqual(['merge_group']);
  });

  it('reads the dispatch inputs and the secrets and variables a workflow uses', () => {
    const facts = readWorkflow(
      [
        'on:',
        '  push:',
        '  workflow_dispatch:',
        '    inputs:',
        '      task_id: { type: string }',
        '      extra: { type: string }',
        'jobs:',
        '  a:',
        "    if: vars.FLAG == ''",
        '    steps:',
        '      - run: echo',
        '        env:',
        '          A: ${{ secrets.ONE }}',
        '          B: ${{ secrets.GITHUB_TOKEN }}',
        '          # C: ${{ secrets.COMMENTED }}',
      ].join('\n'),
    );
    expect(facts).toMatchObject({
      errors: [],
      dispatchable: true,
      inputs: ['task_id', 'extra'],
      secrets: ['ONE'],
      variables: ['FLAG'],
    });
    expect(readWorkflow('on: workflow_dispatch\n')).toMatchObject({
      dispatchable: true,
      inputs: [],
    });
    expect(readWorkflow('on: [push, workflow_dispatch]\n').dispatchable).toBe(true);
    expect(readWorkflow('on: push\n').dispatchable).toBe(false);
    expect(readWorkflow('on: [\n').errors.length).toBeGreaterThan(0);
    expect(compareInputs(['task_id', 'extra'])).toEqual({
      missing: WORKER_INPUT_NAMES.filter((n) => n !== 'task_id'),
      extra: ['extra'],
    });
    expect(compareInputs([...WORKER_INPUT_NAMES])).toEqual({ missing: [], extra: [] });
  });

  it('finds where the worker action is pinned, and how far that is from a version', () => {
    const action = 'agent-coordinator/agent-coordinator/actions/worker';
    const sha = '0123456789abcdef0123456789abcdef01234567';
    expect(findActionPin(`      - uses: ${action}@${sha} # v0.1.0\n`, action)).toEqual({
      ref: sha,
      version: '0.1.0',
    });
    expect(findActionPin(`        uses: ${action}@v0\n`, action)).toEqual({ ref: 'v0' });
    expect(findActionPin(`        uses: '${action}@v1.2.3'\n`, action)).toEqual({
      ref: 'v1.2.3',
      version: '1.2.3',
    });
    expect(findActionPin(`        uses: other/action@v1\n`, action)).toBeUndefined();
    expect(versionDistance('0.1.0', '0.1.0')).toBeUndefined();
    expect(versionDistance('0.0.9', '0.1.0')).toBe('1 minor behind');
    expect(versionDistance('0.1.0', '0.1.3')).toBe('3 patch behind');
    expect(versionDistance('1.0.0', '0.4.0')).toBe('1 major ahead');
  });

  it('prints a list of problems to fix', () => {
    const text = formatReport('doctor: o/r', [
      ok('a', 'fine'),
      problem('b', 'broken\nsecond line', 'mend it'),
      unknown('c', 'no idea'),
    ]);
    expect(text).toContain('  ok    a: fine\n');
    expect(text).toContain('  FAIL  b: broken\n        second line\n        fix: mend it\n');
    expect(text).toContain('  ??    c: no idea\n');
    expect(text).toContain('1 problem to fix:\n  1. b: broken\n');
  });
});
