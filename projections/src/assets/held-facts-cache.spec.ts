import { describe, expect, it } from 'vitest';
import { heldFactsKeptBytes, keepHeldFacts, namedCollections, type HeldFactsCache, type SharedHeldFacts } from './held-facts-cache.ts';

const facts = (readers: string, size = 0): SharedHeldFacts => ({ readers, assetReaders: '', entries: `{"${'x'.repeat(size)}": 1}`, inherited: '{}' });
const fresh = (): HeldFactsCache => ({ version: null, facts: new Map(), bytes: 0 });

describe('the collections\' facts kept for pages', () => {
  it('moves to another version only from the one the reader found kept, and a fetch of missing ones never moves it', () => {
    const cache = fresh();
    keepHeldFacts(cache, 'v1', new Map([['a', facts('u:1')]]), null);
    expect(cache.version).toBe('v1');
    // A reader that started before v1 was kept (it found nothing) read v0: it does not take the cache back.
    keepHeldFacts(cache, 'v0', new Map([['b', facts('u:2')]]), null);
    expect(cache.version).toBe('v1');
    expect([...cache.facts.keys()]).toEqual(['a']);
    // A fetch of missing facts (no version it replaces) under another version adds nothing.
    keepHeldFacts(cache, 'v2', new Map([['c', facts('u:3')]]));
    expect([...cache.facts.keys()]).toEqual(['a']);
    // Under the same version it adds.
    keepHeldFacts(cache, 'v1', new Map([['c', facts('u:3')]]));
    expect([...cache.facts.keys()]).toEqual(['a', 'c']);
    // A reader that found v1 kept and read v2: everything of v1 goes.
    keepHeldFacts(cache, 'v2', new Map([['d', facts('u:4')]]), 'v1');
    expect(cache.version).toBe('v2');
    expect([...cache.facts.keys()]).toEqual(['d']);
  });

  it('weighs what it keeps: the oldest go past the bound, and one collection heavier than a sixty-fourth of it is never kept', () => {
    const cache = fresh();
    const size = Math.floor(heldFactsKeptBytes / 2 / 100);
    for (let i = 0; i < 150; i += 1) keepHeldFacts(cache, 'v', new Map([[`c${i}`, facts('u:1', size)]]), null);
    expect(cache.bytes).toBeLessThanOrEqual(heldFactsKeptBytes);
    expect(cache.facts.has('c149')).toBe(true);
    expect(cache.facts.has('c0')).toBe(false);
    const weighed = [...cache.facts.values()].reduce((sum, f) => sum + 2 * (f.readers.length + f.assetReaders.length + f.entries.length + f.inherited.length) + 96, 0);
    expect(cache.bytes).toBe(weighed);
    keepHeldFacts(cache, 'v', new Map([['heavy', facts('u:1', heldFactsKeptBytes / 64)]]), null);
    expect(cache.facts.has('heavy')).toBe(false);
  });

  it('names each collection of the rows once', () => {
    expect(namedCollections(['a,b', null, 'b', undefined, '', 'c,a'])).toEqual(['a', 'b', 'c']);
  });
});
