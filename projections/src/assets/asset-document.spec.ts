import { describe, expect, it } from 'vitest';
import { assetJsonOf, documentViewer, type DocumentColumns } from './asset-document.ts';

const me = 'u:00000000-0000-0000-0000-00000000000a';
const other = 'u:00000000-0000-0000-0000-00000000000b';
const group = 'g:00000000-0000-0000-0000-00000000000c';
const project = 'pm:00000000-0000-0000-0000-00000000000d';
const organization = 'oa:00000000-0000-0000-0000-00000000000e';
const viewer = documentViewer(['*', me, group, project, organization], false);

const row = (parts: Partial<DocumentColumns>): DocumentColumns => ({ doc: '{"id":"x"', own: null, entries: null, readers: null, held: null, ...parts });
const answer = (parts: Partial<DocumentColumns>, of = viewer) => JSON.parse(assetJsonOf(row(parts), false, of)) as { effective_flags: number; access_scope: string | null; collection_ids: string[] };

describe("a listing row's parts for the caller", () => {
  it('joins the flags of every grant whose principal is the caller', () => {
    // As jsonb writes the grants (a space after each colon and comma).
    expect(answer({ own: `{"${other}": 511}`, entries: `{"${group}": 5, "${other}": 64, "${organization}": 130}` }).effective_flags).toBe(5 | 130);
    expect(answer({ own: `{"${me}": 511}` }).effective_flags).toBe(511);
    expect(answer({ own: `{"${other}":7,"${me}":16}` }).effective_flags).toBe(16);
    expect(answer({ own: '{}' }).effective_flags).toBe(0);
    // The same length and ending as the caller's own principal, another principal.
    const lookalike = 'u:11111111-0000-0000-0000-00000000000a';
    expect(answer({ own: `{"${lookalike}": 511}`, readers: lookalike })).toMatchObject({ effective_flags: 0, access_scope: null });
  });

  it('names the most direct reason the caller reads the asset', () => {
    expect(answer({ readers: `${organization},${group},${project},${me}` }).access_scope).toBe('direct');
    expect(answer({ readers: `${organization},${group},${project}` }).access_scope).toBe('project');
    expect(answer({ readers: `*,${organization},${group}` }).access_scope).toBe('group');
    expect(answer({ readers: `${organization},${other}` }).access_scope).toBe('organization');
    expect(answer({ readers: `${other},*` }).access_scope).toBe('public');
    expect(answer({ readers: other, held: JSON.stringify([['c1'], [], 1, true]) }).access_scope).toBe('collection');
    expect(answer({ readers: other }).access_scope).toBeNull();
    expect(answer({ readers: other }, documentViewer([me], true))).toMatchObject({ access_scope: 'admin', effective_flags: 511 });
  });

  it("names the collections the caller may see, or all of them for whoever manages the asset's grants", () => {
    const held = JSON.stringify([['c1', 'c2'], ['c2'], 1, false]);
    expect(answer({ held })).toMatchObject({ collection_ids: ['c2'], effective_flags: 1 });
    expect(answer({ held, own: `{"${me}": 256}` })).toMatchObject({ collection_ids: ['c1', 'c2'], effective_flags: 257 });
  });
});

describe("a page row's collections, worked out once for the page", () => {
  const collections = new Map([
    ['c1', { visible: false, flags: 4, readsThrough: false }],
    ['c2', { visible: true, flags: 1, readsThrough: true }],
  ]);
  const answerOf = (parts: Partial<DocumentColumns>) =>
    JSON.parse(assetJsonOf(row(parts), false, viewer, collections)) as { effective_flags: number; access_scope: string | null; collection_ids: string[] };

  it('keeps the row order, leaves out collections that no longer exist, and joins their flags', () => {
    expect(answerOf({ held_in: 'c2,gone,c1', readers: other })).toMatchObject({ collection_ids: ['c2'], effective_flags: 5, access_scope: 'collection' });
    expect(answerOf({ held_in: 'c2,gone,c1', own: `{"${me}": 256}` })).toMatchObject({ collection_ids: ['c2', 'c1'], effective_flags: 261 });
    expect(answerOf({ held_in: 'c1', readers: other })).toMatchObject({ collection_ids: [], effective_flags: 4, access_scope: null });
    expect(answerOf({ held_in: 'gone', readers: other })).toMatchObject({ collection_ids: [], effective_flags: 0, access_scope: null });
  });

  it('answers as the statement of one asset does', () => {
    const inline = answer({ held: JSON.stringify([['c2', 'c1'], ['c2'], 5, true]), readers: other });
    expect(answerOf({ held_in: 'c2,c1', readers: other })).toEqual(inline);
  });

  it("refuses a page row without its page's collections", () => {
    expect(() => assetJsonOf(row({ held_in: 'c1' }), false, viewer)).toThrow(/heldCollections/);
  });
});
