import { describe, expect, it } from 'vitest';
import { TtlCache, Turns } from '../../src/engine/memory.js';

describe('TtlCache', () => {
  it('answers until its time is up on the engine clock, then forgets', () => {
    let now = 1_000;
    const cache = new TtlCache<boolean>(100, () => new Date(now));
    cache.set('1:main', true);
    now += 99;
    expect(cache.get('1:main')).toBe(true);
    now += 1;
    expect(cache.get('1:main')).toBeUndefined();
    expect(cache.get('2:main')).toBeUndefined();
  });

  it('starts again empty past its size, so keys from webhooks cannot grow it without end', () => {
    const cache = new TtlCache<string>(60_000, () => new Date(0), 2);
    cache.set('a', 'write');
    cache.set('b', 'read');
    expect([cache.get('a'), cache.get('b')]).toEqual(['write', 'read']);
    cache.set('c', 'none');
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([
      undefined,
      undefined,
      'none',
    ]);
  });
});

describe('Turns', () => {
  it('runs calls for one key in order, even when an earlier one fails, and keys side by side', async () => {
    const turns = new Turns<number>();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = turns.run(1, async () => {
      await new Promise<void>((resolve) => (releaseFirst = resolve));
      order.push('1a');
      throw new Error('first fails');
    });
    const second = turns.run(1, async () => {
      order.push('1b');
      return 'b';
    });
    const other = turns.run(2, async () => {
      order.push('2');
      return 'other';
    });
    await expect(other).resolves.toBe('other');
    expect(order).toEqual(['2']);
    releaseFirst();
    await expect(first).rejects.toThrow('first fails');
    await expect(second).resolves.toBe('b');
    expect(order).toEqual(['2', '1a', '1b']);
    expect(turns.size).toBe(0);
  });
});
