import { afterEach, describe, expect, it } from 'vitest';
import { parseAgentConfigMarker } from '../../src/protocol/markers.js';
import {
  MAINTAINER,
  ONE_TASK_PLAN,
  REPO,
  closeScenario,
  startScenario,
  statusComment,
  taskOf,
  type Scenario,
} from './harness.js';

type Pull = { number: number; body: string };

/**
 * A PR that changes agent configuration says so in its body (the publish job's agent-config
 * section and marker) and in the status comment (SPEC §6), inert whatever the files are called.
 */
describe('agent configuration changed by an agent PR (GitHub double)', () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it('is warned about in the status comment, and the warning follows the PR body', async () => {
    s = await startScenario();
    const changed = ['.claude/settings.json', '.claude/hooks/@alice see #1.sh'];
    s.double.setWorker(() => ({ kind: 'pr', agentConfigChanged: changed }));
    const issue = await s.double.openIssue(REPO, {
      title: 'Hooks',
      body: `Add hooks.\n\n${ONE_TASK_PLAN}`,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();

    const [pull] = s.double.pulls(REPO) as Pull[];
    expect(parseAgentConfigMarker(pull!.body)).toEqual(changed);
    expect(pull!.body).toContain('**Agent configuration changed.**');
    const task = await taskOf(s, issue, 'a');
    expect(task?.state).toBe('in_review');

    let status = statusComment(s.double, issue);
    const note = status.split('\n').find((line) => line.includes('changes agent configuration'));
    expect(note).toBeDefined();
    expect(note!.replaceAll('\u2060', '').replaceAll('\\', '')).toBe(
      `- **a (#${pull!.number}) changes agent configuration:** .claude/settings.json, .claude/hooks/@alice see #1.sh`,
    );
    // Inert: the path mentions no one and references nothing.
    expect(note).not.toMatch(/@alice|#1\b/);

    // A person with write access edits the body and drops the marker: the warning goes with it
    // (documented: the body is theirs to edit too).
    const edited = pull!.body.replace(/<!-- agent-coordinator:agent-config [^>]*-->/, '');
    await s.double.editPullBody(REPO, pull!.number, edited, MAINTAINER);
    await s.settle();
    status = statusComment(s.double, issue);
    expect(status).not.toContain('changes agent configuration');

    // And back: the status comment follows the body's marker, not the first sighting.
    await s.double.editPullBody(REPO, pull!.number, pull!.body, MAINTAINER);
    await s.settle();
    expect(statusComment(s.double, issue)).toContain('changes agent configuration');
  });

  it('says nothing for a PR that changes none', async () => {
    s = await startScenario();
    s.double.setWorker(() => ({ kind: 'pr' }));
    const issue = await s.double.openIssue(REPO, {
      title: 'Plain',
      body: ONE_TASK_PLAN,
      user: MAINTAINER,
    });
    await s.double.addLabel(REPO, issue, 'agent', MAINTAINER);
    await s.settle();
    expect((await taskOf(s, issue, 'a'))?.state).toBe('in_review');
    expect(statusComment(s.double, issue)).not.toContain('agent configuration');
  });
});
