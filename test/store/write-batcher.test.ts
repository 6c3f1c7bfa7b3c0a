import { describe, expect, it, vi } from 'vitest';
import { WriteBatcher } from '../../src/store/write-batcher.js';

/** A write whose completion the test decides, recording the batches it was given. */
function controlledWrites() {
  const batches: number[][] = [];
  const finish: Array<(error?: Error) => void> = [];
  const writeMany = (items: number[]) => {
    batches.push(items);
    return new Promise<string[]>((resolve, reject) =>
      finish.push((error) => (error ? reject(error) : resolve(items.map((i) => `done ${i}`)))),
    );
  };
  return { batches, finish, writeMany };
}

describe('WriteBatcher', () => {
  it('writes a lone item at once, and groups what arrives while writes are in flight', async () => {
    const { batches, finish, writeMany } = controlledWrites();
    const batcher = new WriteBatcher(writeMany, 100, 1);
    const first = batcher.write(1);
    expect(batches).toEqual([[1]]);
    const rest = [2, 3, 4].map((i) => batcher.write(i));
    expect(batches).toHaveLength(1);
    finish[0]!();
    expect(await first).toBe('done 1');
    await vi.waitFor(() => expect(batches).toEqual([[1], [2, 3, 4]]));
    finish[1]!();
    expect(await Promise.all(rest)).toEqual(['done 2', 'done 3', 'done 4']);
  });

  it('keeps batches at their maximum size and at most maxInFlight writes going', async () => {
    const { batches, finish, writeMany } = controlledWrites();
    const batcher = new WriteBatcher(writeMany, 2, 2);
    const all = [1, 2, 3, 4, 5, 6, 7].map((i) => batcher.write(i));
    expect(batches).toEqual([[1], [2]]);
    finish[0]!();
    finish[1]!();
    await Promise.all(all.slice(0, 2));
    await vi.waitFor(() => expect(batches).toEqual([[1], [2], [3, 4], [5, 6]]));
    finish[2]!();
    finish[3]!();
    await Promise.all(all.slice(2, 6));
    await vi.waitFor(() => expect(batches.at(-1)).toEqual([7]));
    finish[4]!();
    expect(await all[6]).toBe('done 7');
  });

  it("gives every caller in a failed batch the batch's error, and goes on with the next", async () => {
    const { finish, writeMany } = controlledWrites();
    const batcher = new WriteBatcher(writeMany, 100, 1);
    const first = batcher.write(1);
    const second = [batcher.write(2), batcher.write(3)];
    finish[0]!();
    await first;
    await vi.waitFor(() => expect(finish).toHaveLength(2));
    finish[1]!(new Error('database gone'));
    for (const p of second) await expect(p).rejects.toThrow('database gone');
    const later = batcher.write(4);
    await vi.waitFor(() => expect(finish).toHaveLength(3));
    finish[2]!();
    expect(await later).toBe('done 4');
  });

  it('refuses a write that answers for the wrong number of items', async () => {
    const batcher = new WriteBatcher(async (items: number[]) => items.slice(1), 100, 1);
    await expect(batcher.write(1)).rejects.toThrow('a batch of 1 got 0 outcomes');
  });
});
