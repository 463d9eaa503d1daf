import { describe, expect, it } from 'vitest';
import { listingDriver, queryDriver } from './order-drivers.ts';

const owner = '0190f5a2-8a3c-7b4d-9e1f-2a3b4c5d6e7f';

describe('the driver of a filtered page', () => {
  it('follows the owner, else a metadata value of one reading, else a tag, else a single record type, probing the other tags', () => {
    expect(listingDriver({ ownerId: owner, metadata: ['kind:core'], tags: ['a', 'b'], recordTypes: ['dataset'] })).toEqual({ primary: { kind: 'owner_id', value: owner }, probedTags: ['a', 'b'] });
    expect(listingDriver({ metadata: ['n:3', 'site', 'site.name:Dome C'], tags: ['a'], recordTypes: [] })).toEqual({ primary: { kind: 'metadata', path: ['site', 'name'], value: 'Dome C' }, probedTags: ['a'] });
    expect(listingDriver({ metadata: ['n:3'], tags: ['a', 'b', 'a'], recordTypes: ['dataset'] })).toEqual({ primary: { kind: 'tag', value: 'a' }, probedTags: ['b'] });
    expect(listingDriver({ tags: [], recordTypes: ['dataset'] })).toEqual({ primary: { kind: 'record_type', value: 'dataset' }, probedTags: [] });
    expect(listingDriver({ tags: [], recordTypes: ['dataset', 'image'] })).toBeUndefined();
  });

  it('leaves to the windows what asset_metadata_order does not hold: null, long strings, deep paths', () => {
    expect(listingDriver({ metadata: ['k:null', `k:${'x'.repeat(65)}`, 'a.b.c.d.e:x'], tags: [], recordTypes: [] })).toBeUndefined();
    expect(listingDriver({ metadata: ['a.b.c.d:x'], tags: [], recordTypes: [] })?.primary).toEqual({ kind: 'metadata', path: ['a', 'b', 'c', 'd'], value: 'x' });
  });

  it('takes a structured query\'s conditions only where every match must meet them', () => {
    const tag = (value: string) => ({ field: 'tags', op: 'contains', value });
    expect(queryDriver(tag('a'))).toEqual({ primary: { kind: 'tag', value: 'a' }, probedTags: [] });
    expect(queryDriver({ and: [tag('a'), { field: 'metadata.instrument', op: 'eq', value: 'INST-7' }, { field: 'metadata.size', op: 'gt', value: 5 }] })).toEqual({
      primary: { kind: 'metadata', path: ['instrument'], value: 'INST-7' },
      probedTags: ['a'],
    });
    expect(queryDriver({ and: [{ field: 'owner_id', op: 'eq', value: owner.toUpperCase() }, { field: 'record_type', op: 'eq', value: 'dataset' }] })).toEqual({ primary: { kind: 'owner_id', value: owner }, probedTags: [] });
    expect(queryDriver({ and: [{ field: 'metadata.n', op: 'eq', value: 3 }] })?.primary).toEqual({ kind: 'metadata', path: ['n'], value: 3 });
    // Under `or` or `not`, or a list of tags (`eq` as a set, `in`): nothing every match must hold.
    expect(queryDriver({ or: [tag('a'), tag('b')] })).toBeUndefined();
    expect(queryDriver({ not: tag('a') })).toBeUndefined();
    expect(queryDriver({ and: [{ field: 'tags', op: 'eq', value: ['a', 'b'] }, { field: 'tags', op: 'in', value: ['c'] }] })).toBeUndefined();
    expect(queryDriver({ field: 'metadata.k', op: 'contains', value: { x: 1 } })).toBeUndefined();
  });
});
