import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_ANSWERED, REFUSAL_REPLY_LIMITS } from '../../src/core/commands/index.js';
import type { DatabaseHandle } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { ENGINES } from '../helpers/engines.js';

/**
 * The guard behind the refusal reply budget (src/core/commands/refusal-replies.ts): refusals
 * handled at once, in different repositories of one installation (whose deliveries are handled
 * side by side), are answered no more than core's limits let one after another.
 */
describe.each(ENGINES)('recorded refusals on $name', (engine) => {
  let dispose: () => Promise<void>;
  let handle: DatabaseHandle;
  let store: Store;
  const REPOSITORIES = Array.from({ length: 8 }, (_, i) => 801 + i);
  let nextComment = 1;

  beforeAll(async () => {
    ({ handle, dispose } = await engine.open());
    store = createStore(handle);
    for (const id of REPOSITORIES)
      await store.repositories.ensureRepository(81, { id, owner: 'alpha', name: `r${id}` });
  });
  afterAll(() => dispose());

  const refusal = (
    repositoryId: number,
    actor: string,
    createdAt: Date,
    commentId?: number,
    reason: string | ((answered: boolean) => string) = 'only people with write access can',
  ) =>
    store.commands.recordRefusal(
      {
        repositoryId,
        issueNumber: 1,
        runId: null,
        commentId: commentId ?? nextComment++,
        ordinal: 0,
        actorLogin: actor,
        permission: 'read',
        name: 'help',
        args: {},
        deliveryId: `d-${nextComment}`,
        createdAt,
      },
      { reason, answerable: true },
    );

  it('answers one person refused in every repository at once on at most 3 of them', async () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const recorded = await Promise.all(REPOSITORIES.map((id) => refusal(id, 'outsider', at)));
    expect(recorded.filter((r) => r.answered)).toHaveLength(REFUSAL_REPLY_LIMITS.perPerson);
    expect(new Set(recorded.map((r) => r.row.id)).size).toBe(REPOSITORIES.length);
  });

  it('answers at most 30 of many people refused at once across the repositories', async () => {
    const at = new Date('2026-01-02T00:00:00Z');
    const recorded = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        refusal(REPOSITORIES[i % REPOSITORIES.length]!, `outsider-${i}`, at),
      ),
    );
    expect(recorded.filter((r) => r.answered)).toHaveLength(REFUSAL_REPLY_LIMITS.perInstallation);
  });

  it('keeps the decision a refusal was recorded with when it is recorded again', async () => {
    const at = new Date('2026-01-03T00:00:00Z');
    const first = await refusal(REPOSITORIES[0]!, 'again', at, 9_001);
    const again = await refusal(REPOSITORIES[0]!, 'again', at, 9_001);
    expect(first.answered).toBe(true);
    expect(again).toEqual({ ...first, recordedBefore: true });
  });

  // A close is opened again only when answered, which its reason says; what GitHub answered to
  // the reopen is known after, and rewords only an answered close.
  it('words a refusal by its decision, and rewords only an answered one', async () => {
    const at = new Date('2026-01-04T00:00:00Z');
    const byDecision = (answered: boolean) => (answered ? 'reopened' : 'left closed');
    const recorded = await Promise.all(
      REPOSITORIES.map((id) => refusal(id, 'closer', at, undefined, byDecision)),
    );
    const outcomes = () =>
      Promise.all(
        REPOSITORIES.map(async (id) =>
          (await store.commands.ofRepository(id))
            .filter((c) => c.actorLogin === 'closer')
            .map((c) => c.outcome),
        ),
      ).then((all) => all.flat());
    expect((await outcomes()).filter((o) => o === 'reopened')).toHaveLength(
      REFUSAL_REPLY_LIMITS.perPerson,
    );
    expect((await outcomes()).filter((o) => o === `left closed${NOT_ANSWERED}`)).toHaveLength(
      REPOSITORIES.length - REFUSAL_REPLY_LIMITS.perPerson,
    );
    for (const { row } of recorded) await store.commands.rewordAnsweredRefusal(row.id, 'refused');
    expect((await outcomes()).filter((o) => o === 'refused')).toHaveLength(
      REFUSAL_REPLY_LIMITS.perPerson,
    );
    const again = await refusal(
      recorded[0]!.row.repositoryId,
      'closer',
      at,
      recorded[0]!.row.commentId,
    );
    expect(again.answered).toBe(recorded[0]!.answered);
  });
});
