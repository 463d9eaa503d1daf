import { describe, expect, it } from 'vitest';
import { ReadCache } from './read-cache.ts';

const answer = (n: number) => ({ status: 200, rawJson: `[${n}]` });

describe('ReadCache', () => {
  it('answers what was kept under the same snapshot', () => {
    const cache = new ReadCache(10_000);
    cache.set('a', '10:12:', answer(1), 100);
    // Kept as the bytes it is sent as.
    expect(cache.get('a', '10:12:')).toEqual({ status: 200, rawJsonBytes: Buffer.from('[1]') });
    expect(cache.get('b', '10:12:')).toBeUndefined();
  });

  it('drops everything once the snapshot moves, and never answers from an older one', () => {
    const cache = new ReadCache(10_000);
    cache.set('a', '10:12:', answer(1), 100);
    cache.set('b', '10:12:', answer(2), 100);
    expect(cache.get('a', '10:13:')).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
    // A slow request that read the old snapshot cannot put its answer back.
    cache.set('b', '10:12:', answer(2), 100);
    expect(cache.get('b', '10:13:')).toBeUndefined();
  });

  it("keeps each server's answers under that server's own snapshot (the primary, each standby)", () => {
    const cache = new ReadCache(10_000);
    cache.set('a', '10:12:', answer(1), 100, 'standby-1');
    cache.set('a', '10:14:', answer(2), 100, 'standby-2');
    // Reads alternating between the standbys find each one's answer: equal keys, apart by server.
    expect(cache.get('a', '10:12:', 'standby-1')).toEqual({ status: 200, rawJsonBytes: Buffer.from('[1]') });
    expect(cache.get('a', '10:14:', 'standby-2')).toEqual({ status: 200, rawJsonBytes: Buffer.from('[2]') });
    // The same snapshot text on another server is not that server's answer.
    expect(cache.get('a', '10:12:', 'primary')).toBeUndefined();
    // One server moving on drops its answers only.
    expect(cache.get('a', '10:13:', 'standby-1')).toBeUndefined();
    expect(cache.get('a', '10:14:', 'standby-2')).toBeDefined();
    expect(cache.size).toEqual({ entries: 1, bytes: 100 });
  });

  it('evicts the least recently used past its size, and keeps nothing larger than a quarter of it', () => {
    const cache = new ReadCache(1_000);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, 's', answer(1), 240);
    cache.get('a', 's');
    cache.set('e', 's', answer(2), 240);
    expect(cache.get('b', 's')).toBeUndefined();
    expect(cache.get('a', 's')).toBeDefined();
    expect(cache.size.bytes).toBeLessThanOrEqual(1_000);
    cache.set('huge', 's', answer(3), 251);
    expect(cache.get('huge', 's')).toBeUndefined();
  });
});
