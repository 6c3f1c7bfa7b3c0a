import { afterEach, describe, expect, it } from 'vitest';
import { TEST_PUBLIC_URL } from '../helpers/app.js';
import {
  closeScenario,
  MAINTAINER,
  repositoryIdOf,
  startScenario,
  type Scenario,
} from '../e2e/harness.js';
import { assignmentResponseSchema } from '../../src/protocol/assignment.js';
import { ask, bodyOf, runsOn, startIssue } from './fixture.js';

/** A second installation, on another account, running the same issue and task ids. */
const OTHER = 'initech/gadgets';

/**
 * Whoever owns another repository where the App runs mints genuine tokens for their own worker
 * runs (docs/security.md, "Another installation"). Their repository's issue and task may carry the
 * very numbers and ids of this repository's; a token names its repository, and the assignment is
 * looked up in that repository only.
 */
describe("another installation's worker asks for this repository's task", () => {
  let s: Scenario;
  afterEach(() => closeScenario(s));

  it("gets its own repository's assignment and token, never this one's", async () => {
    s = await startScenario();
    s.double.setWorker(null);
    await s.double.createRepo({ owner: 'initech', name: 'gadgets', private: true, files: {} });
    await s.double.setPermission(OTHER, MAINTAINER, 'maintain');
    const ours = await startIssue(s, ['a']);
    const theirsIssue = await s.double.openIssue(OTHER, {
      title: 'Theirs',
      body: '```tasks\n- id: a\n  title: Their task\n```\n',
      user: MAINTAINER,
    });
    await s.double.addLabel(OTHER, theirsIssue, 'agent', MAINTAINER);
    await s.settle();
    expect(theirsIssue).toBe(ours);
    const theirs = s.double.runs(OTHER)[0]!;
    const ourRun = runsOn(s, ours, 'a')[0]!;
    expect(bodyOf(theirs)).toEqual(bodyOf(ourRun));

    const token = await s.double.oidc.mint(Number(theirs.id), { audience: TEST_PUBLIC_URL });
    const answer = await ask(s, `Bearer ${token}`, bodyOf(ourRun));
    expect(answer.status).toBe(200);
    const body = assignmentResponseSchema.parse(answer.json);
    expect(body.title).toBe('Their task');
    expect(body.prompt).not.toContain('Do these.');
    const mint = s.double.requests
      .filter((r) => r.route === 'POST /app/installations/{installation_id}/access_tokens')
      .at(-1)!;
    expect(mint.body).toMatchObject({
      repository_ids: [(s.double.repository(OTHER) as { id: number }).id],
    });
    expect(mint.body).not.toMatchObject({ repository_ids: [repositoryIdOf(s.double)] });
  });
});
