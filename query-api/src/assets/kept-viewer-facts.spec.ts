import { describe, expect, it } from 'vitest';
import { StaleViewerFacts, type ReadDb, type ViewerFacts } from '@cairn/projections';
import type { Caller } from '@cairn/platform';
import { KeptViewerFacts } from './kept-viewer-facts.ts';

const db = {} as ReadDb;
const callerOf = (userId: string) => ({ userId, isSystemAdmin: false }) as Caller;

/** A store whose facts are read by counting: principals `u:<user>` and the read's number. */
function store(seconds: number, size = 10) {
  let clock = 0;
  let reads = 0;
  const kept = new KeptViewerFacts(seconds, { size, now: () => clock, readFacts: async (_db, userId) => ({ p: [`u:${userId}`, `n:${++reads}`], restricted: false, stars: 0 }) });
  const seen: ViewerFacts[] = [];
  const read = (userId: string) => kept.withFacts(db, callerOf(userId), async (facts) => (seen.push(facts), facts));
  return { kept, read, seen, tick: (ms: number) => (clock += ms), reads: () => reads };
}

describe('KeptViewerFacts', () => {
  it('reads the facts once and hands them on, marked kept for the caller, until they are older than the bound', async () => {
    const s = store(10);
    const first = await s.read('a');
    expect(first).toEqual({ p: ['u:a', 'n:1'], restricted: false, stars: 0 });
    expect('keptFor' in first).toBe(false);
    const second = await s.read('a');
    expect(second).toEqual({ p: ['u:a', 'n:1'], restricted: false, stars: 0, keptFor: 'a' });
    expect(s.reads()).toBe(1);
    s.tick(10_001);
    expect((await s.read('a')).p).toEqual(['u:a', 'n:2']);
    expect(s.kept.counts).toEqual({ held: 1, stale: 0, read: 2 });
  });

  it('reads again, once, when the kept facts were found stale, and keeps those read then', async () => {
    const s = store(10);
    await s.read('a');
    let calls = 0;
    const result = await s.kept.withFacts(db, callerOf('a'), async (facts) => {
      calls += 1;
      if ('keptFor' in facts) throw new StaleViewerFacts({ p: ['u:a'], restricted: true });
      return facts.p;
    });
    expect([calls, result]).toEqual([2, ['u:a', 'n:2']]);
    expect((await s.read('a')).p).toEqual(['u:a', 'n:2']);
    expect(s.kept.counts).toEqual({ held: 1, stale: 1, read: 1 });
  });

  it('passes other errors on, and keeps nothing at 0 seconds', async () => {
    const s = store(10);
    await s.read('a');
    await expect(s.kept.withFacts(db, callerOf('a'), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const none = store(0);
    await none.read('a');
    await none.read('a');
    expect(none.reads()).toBe(2);
    expect(none.seen.every((f) => !('keptFor' in f))).toBe(true);
  });

  it('takes facts read without the restriction flag as restricted: the check then reads it', async () => {
    const kept = new KeptViewerFacts(10, { now: () => 0, readFacts: async () => ({ p: ['u:a'] }) });
    const seen: unknown[] = [];
    for (let i = 0; i < 2; i += 1) await kept.withFacts(db, callerOf('a'), async (facts) => seen.push(facts));
    expect(seen).toEqual([{ p: ['u:a'] }, { p: ['u:a'], restricted: true, keptFor: 'a' }]);
  });

  it('keeps at most `size` callers, the longest kept dropped first', async () => {
    const s = store(10, 2);
    await s.read('a');
    await s.read('b');
    await s.read('c');
    expect(s.reads()).toBe(3);
    await s.read('b');
    await s.read('c');
    expect(s.reads()).toBe(3);
    await s.read('a');
    expect(s.reads()).toBe(4);
  });
});
