import { describe, expect, it } from 'vitest';
import { listingDriver, queryDriver } from './driver-choice.ts';

const owner = '0190f5a2-8a3c-7b4d-9e1f-2a3b4c5d6e7f';

describe('the driver of a filtered page', () => {
  it('follows the owner, else a metadata value of one reading, else a tag, else a single record type, probing the other tags', () => {
    expect(listingDriver({ ownerId: owner, metadata: ['kind:core'], tags: ['a', 'b'], recordTypes: ['dataset'] })).toEqual({ primary: { kind: 'owner_id', value: owner }, probedTags: ['a', 'b'] });
    expect(listingDriver({ metadata: ['n:3', 'site', 'site.name:Dome C'], tags: ['a'], recordTypes: [] })).toEqual({ primary: { kind: 'metadata', path: ['site', 'name'], value: 'Dome C' }, probedTags: ['a'] });
    expect(listingDriver({ metadata: ['n:3'], tags: ['a', 'b', 'a'], recordTypes: ['dataset'] })).toEqual({ primary: { kind: 'tag', value: 'a' }, probedTags: ['b'], recordTypes: ['dataset'] });
    expect(listingDriver({ tags: [], recordTypes: ['dataset'] })).toEqual({ primary: { kind: 'record_type', value: 'dataset' }, probedTags: [] });
    expect(listingDriver({ tags: [], recordTypes: ['dataset', 'image'] })).toBeUndefined();
  });

  it('checks the record types on the entries of a tag or a metadata value, whose postings hold them (migration 0042), and on no other walk', () => {
    expect(listingDriver({ tags: ['a'], recordTypes: ['dataset', 'image', 'dataset'] })).toEqual({ primary: { kind: 'tag', value: 'a' }, probedTags: [], recordTypes: ['dataset', 'image'] });
    expect(listingDriver({ metadata: ['site:x'], tags: [], recordTypes: ['image'] })).toMatchObject({ primary: { kind: 'metadata' }, recordTypes: ['image'] });
    expect(listingDriver({ ownerId: owner, tags: [], recordTypes: ['image'] })).not.toHaveProperty('recordTypes');
    expect(listingDriver({ tags: [], recordTypes: ['image'], titlePrefix: 'coastal' })).not.toHaveProperty('recordTypes');
    const tag = { field: 'tags', op: 'contains', value: 'a' };
    expect(queryDriver({ and: [tag, { field: 'record_type', op: 'in', value: ['dataset', 'document'] }] })).toEqual({ primary: { kind: 'tag', value: 'a' }, probedTags: [], recordTypes: ['dataset', 'document'] });
    expect(queryDriver({ and: [{ field: 'record_type', op: 'eq', value: 'dataset' }, tag] })).toMatchObject({ recordTypes: ['dataset'] });
    // Only what every match must meet: not a type excluded, nor one under an `or`.
    expect(queryDriver({ and: [tag, { field: 'record_type', op: 'ne', value: 'dataset' }] })).not.toHaveProperty('recordTypes');
    expect(queryDriver({ and: [tag, { or: [{ field: 'record_type', op: 'eq', value: 'dataset' }, { field: 'title', op: 'eq', value: 'x' }] }] })).not.toHaveProperty('recordTypes');
  });

  it('follows a collection after an owner and before a metadata value, its id as the postings hold it', () => {
    const collection = '0190F5A2-8A3C-7B4D-9E1F-2A3B4C5D6E80';
    expect(listingDriver({ ownerId: owner, collectionId: collection, tags: [], recordTypes: [] })?.primary.kind).toBe('owner_id');
    expect(listingDriver({ collectionId: collection, metadata: ['kind:core'], tags: ['a'], recordTypes: [] })).toEqual({ primary: { kind: 'collection', value: collection.toLowerCase() }, probedTags: ['a'] });
    expect(queryDriver({ and: [{ field: 'collection_id', op: 'contains', value: collection }, { field: 'tags', op: 'contains', value: 'a' }] })).toEqual({ primary: { kind: 'collection', value: collection.toLowerCase() }, probedTags: ['a'] });
    expect(queryDriver({ field: 'collection_id', op: 'eq', value: collection })?.primary.kind).toBe('collection');
    // A list (`eq` as a set, `in`) or `ne`: not every match is in one collection.
    expect(queryDriver({ field: 'collection_id', op: 'in', value: [collection] })).toBeUndefined();
    expect(queryDriver({ field: 'collection_id', op: 'ne', value: collection })).toBeUndefined();
  });

  it('follows a title prefix along the longest key it fills: before a record type from 6 characters, after it below, never below 3; q last', () => {
    const none = { tags: [], recordTypes: [] };
    const prefix = (titlePrefix: string, recordTypes: string[] = []) => listingDriver({ ...none, recordTypes, titlePrefix })?.primary;
    expect(prefix('Co')).toBeUndefined();
    expect(prefix('Coa')).toEqual({ kind: 'title_prefix', value: 'Coa', keyLength: 3 });
    expect(prefix('COAST')).toEqual({ kind: 'title_prefix', value: 'COAST', keyLength: 3 });
    expect(prefix('coasta')).toEqual({ kind: 'title_prefix', value: 'coasta', keyLength: 6 });
    expect(prefix('Coastal s')).toEqual({ kind: 'title_prefix', value: 'Coastal s', keyLength: 6 });
    expect(prefix('Coastal sed')).toEqual({ kind: 'title_prefix', value: 'Coastal sed', keyLength: 10 });
    // Characters as PostgreSQL's `left` counts them: an astral one is one, not two UTF-16 units.
    expect(prefix('🧊🧊🧊🧊🧊')).toEqual({ kind: 'title_prefix', value: '🧊🧊🧊🧊🧊', keyLength: 3 });
    expect(prefix('coastal', ['dataset'])).toEqual({ kind: 'title_prefix', value: 'coastal', keyLength: 6 });
    expect(prefix('coast', ['dataset'])).toEqual({ kind: 'record_type', value: 'dataset' });
    expect(prefix('coast', ['dataset', 'image'])).toEqual({ kind: 'title_prefix', value: 'coast', keyLength: 3 });
    expect(listingDriver({ ...none, tags: ['a'], titlePrefix: 'coastal sed' })).toEqual({ primary: { kind: 'tag', value: 'a' }, probedTags: [] });
    expect(listingDriver({ ...none, ownerId: owner, titlePrefix: 'coastal sed', q: 'frost' })?.primary.kind).toBe('owner_id');
    expect(listingDriver({ ...none, q: 'frost' })).toEqual({ primary: { kind: 'q', value: 'frost' }, probedTags: [] });
    expect(listingDriver({ ...none, q: 'frost', recordTypes: ['dataset'] })?.primary.kind).toBe('record_type');
    expect(listingDriver({ ...none, q: 'frost', titlePrefix: 'co' })?.primary.kind).toBe('q');
    expect(listingDriver({ ...none, q: '' })).toBeUndefined();
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
    // A title prefix, as the listing's; `eq` of a title and prefixes of other fields are not walks.
    expect(queryDriver({ field: 'title', op: 'prefix', value: 'Coastal sed' })?.primary).toEqual({ kind: 'title_prefix', value: 'Coastal sed', keyLength: 10 });
    expect(queryDriver({ and: [{ field: 'title', op: 'prefix', value: 'coa' }, { field: 'record_type', op: 'eq', value: 'dataset' }] })?.primary).toEqual({ kind: 'record_type', value: 'dataset' });
    expect(queryDriver({ and: [{ field: 'title', op: 'eq', value: 'Coastal sediment' }, { field: 'alias', op: 'prefix', value: 'coastal' }, { field: 'title', op: 'prefix', value: 'co' }] })).toBeUndefined();
    expect(queryDriver({ or: [{ field: 'title', op: 'prefix', value: 'coastal' }] })).toBeUndefined();
  });
});
