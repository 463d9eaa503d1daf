import { assetsProjection, leafTerm, rebuildBlueGreen } from '@cairn/projections';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { marker } from './asset-listing-fixtures.ts';
import { createAsset } from './assets-fixtures.ts';

/**
 * asset_tag_order and asset_metadata_order (migrations 0032, 0033), the rows a tag or
 * metadata filter walks in the listing's order, follow every change of an asset's tags,
 * metadata and record type (0042): creation, an update, deletion, and a rebuild of the
 * assets projection makes the same rows again.
 */
describe('the tags and metadata kept in the listing order', () => {
  let h: Harness;
  let owner: User;

  beforeAll(async () => {
    h = await startHarness('all');
    owner = await h.createUser();
  });
  afterAll(async () => {
    await h.close();
  });

  const titles = async (tags: string) => ((await request(h.queryApp).get('/api/assets/').query({ tags }).set(bearer(owner)).expect(200)).body as { title: string }[]).map((a) => a.title);
  const queried = async (tag: string) =>
    ((await request(h.queryApp).post('/api/assets/query/').set(bearer(owner)).send({ where: { field: 'tags', op: 'contains', value: tag } }).expect(200)).body as { title: string }[]).map((a) => a.title);
  const rowsOf = async (assetIds: string[]) =>
    (
      await h.resources.pool.query<{ tag: string; asset_id: string; created_at: Date }>('select tag, asset_id, created_at from asset_tag_order where asset_id = any($1::uuid[]) order by asset_id, tag', [assetIds])
    ).rows;

  it('tags: follows creation, a change of tags and deletion, and a rebuild makes the same rows', async () => {
    const [m, x, y] = [marker(), marker(), marker()];
    const first = await createAsset(h, owner, { title: 'first', tags: [m, x, x] });
    const second = await createAsset(h, owner, { title: 'second', tags: [m] });
    expect(await titles(m)).toEqual(['second', 'first']);
    expect(await titles(x)).toEqual(['first']);
    expect(await titles(`${x},${m}`)).toEqual(['first']);
    expect(await queried(x)).toEqual(['first']);
    // One row per distinct tag, with the asset's creation time.
    const made = await rowsOf([first.id]);
    expect(made.map((r) => r.tag).sort()).toEqual([m, x].sort());
    expect(made.every((r) => r.created_at.toISOString() === first.created_at)).toBe(true);

    await request(h.commandApp).patch(`/api/assets/${first.id}/`).set(bearer(owner)).send({ tags: [m, y] }).expect(200);
    expect(await titles(x)).toEqual([]);
    expect(await titles(y)).toEqual(['first']);
    expect(await queried(y)).toEqual(['first']);
    // A change of something else leaves the rows as they are.
    await request(h.commandApp).patch(`/api/assets/${first.id}/`).set(bearer(owner)).send({ title: 'first again' }).expect(200);
    expect(await titles(`${m},${y}`)).toEqual(['first again']);

    await request(h.commandApp).delete(`/api/assets/${second.id}/`).set(bearer(owner)).expect(204);
    expect(await titles(m)).toEqual(['first again']);
    expect(await rowsOf([second.id])).toEqual([]);

    const before = await rowsOf([first.id, second.id]);
    expect(before.map((r) => r.tag).sort()).toEqual([m, y].sort());
    await rebuildBlueGreen({ ...h.resources, inline: true }, assetsProjection);
    expect(await rowsOf([first.id, second.id])).toEqual(before);
    expect(await titles(y)).toEqual(['first again']);
  });

  const byMetadata = async (metadata: string) =>
    ((await request(h.queryApp).get('/api/assets/').query({ metadata }).set(bearer(owner)).expect(200)).body as { title: string }[]).map((a) => a.title);
  const metadataRowsOf = async (assetIds: string[]) =>
    (await h.resources.pool.query<{ term: string; asset_id: string }>('select term::text as term, asset_id from asset_metadata_order where asset_id = any($1::uuid[]) order by asset_id, term', [assetIds])).rows;
  const termsOf = (leaves: [string[], string | number][]) => leaves.map(([path, value]) => leafTerm(path, value)).sort();

  it('metadata: follows creation, a change of metadata and deletion, and a rebuild makes the same rows', async () => {
    const [m, n] = [marker(), marker()];
    const first = await createAsset(h, owner, { title: 'one', metadata: { site: { name: m }, list: [n, 'x'], size: 3 } });
    const second = await createAsset(h, owner, { title: 'two', metadata: { site: { name: m } } });
    expect(await byMetadata(`site.name:${m}`)).toEqual(['two', 'one']);
    expect(await byMetadata(`list:${n}`)).toEqual(['one']);
    // One row per path and scalar, a list's elements at the list's path.
    expect((await metadataRowsOf([first.id])).map((r) => r.term).sort()).toEqual(termsOf([[['list'], n], [['list'], 'x'], [['site', 'name'], m], [['size'], 3]]));

    await request(h.commandApp).patch(`/api/assets/${first.id}/`).set(bearer(owner)).send({ metadata: { site: { name: n } } }).expect(200);
    expect(await byMetadata(`site.name:${m}`)).toEqual(['two']);
    expect(await byMetadata(`site.name:${n}`)).toEqual(['one']);
    expect(await byMetadata(`list:${n}`)).toEqual([]);
    const queried = await request(h.queryApp).post('/api/assets/query/').set(bearer(owner)).send({ where: { field: 'metadata.site.name', op: 'eq', value: n } }).expect(200);
    expect((queried.body as { title: string }[]).map((a) => a.title)).toEqual(['one']);

    await request(h.commandApp).delete(`/api/assets/${second.id}/`).set(bearer(owner)).expect(204);
    expect(await byMetadata(`site.name:${m}`)).toEqual([]);
    expect(await metadataRowsOf([second.id])).toEqual([]);

    const before = await metadataRowsOf([first.id, second.id]);
    expect(before.map((r) => r.term)).toEqual(termsOf([[['site', 'name'], n]]));
    await rebuildBlueGreen({ ...h.resources, inline: true }, assetsProjection);
    expect(await metadataRowsOf([first.id, second.id])).toEqual(before);
  });

  const typesOf = async (assetId: string) =>
    (
      await h.resources.pool.query<{ kind: string; record_type: string }>(
        `select 'tag' as kind, record_type from asset_tag_order where asset_id = $1
         union all select 'term', record_type from asset_metadata_order where asset_id = $1
         union all select 'number', record_type from asset_metadata_numbers where asset_id = $1 order by 1, 2`,
        [assetId],
      )
    ).rows;
  const typedListing = async (query: Record<string, string>) =>
    ((await request(h.queryApp).get('/api/assets/').query(query).set(bearer(owner)).expect(200)).body as { title: string }[]).map((a) => a.title);
  const typedQuery = async (tag: string, types: string[]) =>
    (
      (await request(h.queryApp).post('/api/assets/query/').set(bearer(owner)).send({ where: { and: [{ field: 'tags', op: 'contains', value: tag }, { field: 'record_type', op: 'in', value: types }] } }).expect(200))
        .body as { title: string }[]
    ).map((a) => a.title);

  it("the record type every posting holds (migration 0042) follows the asset's: at creation, a new type alone, with new tags or metadata, and through a rebuild", async () => {
    const [m, t] = [marker(), marker()];
    const asset = await createAsset(h, owner, { title: 'typed', record_type: 'dataset', tags: [t], metadata: { site: m, size: 3 } });
    // With statistics the listing reads by its drivers' walks (without them, by a walk of the order).
    await h.resources.pool.query('analyze assets');
    const all = (type: string) => [
      { kind: 'number', record_type: type },
      { kind: 'tag', record_type: type },
      { kind: 'term', record_type: type },
      { kind: 'term', record_type: type },
    ];
    expect(await typesOf(asset.id)).toEqual(all('dataset'));
    expect(await typedListing({ tags: t, record_type: 'dataset' })).toEqual(['typed']);
    expect(await typedListing({ metadata: `site:${m}`, record_type: 'image,dataset' })).toEqual(['typed']);
    expect(await typedQuery(t, ['image', 'dataset'])).toEqual(['typed']);

    // A new type alone: every posting follows, and the walks find the asset by it.
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ record_type: 'image' }).expect(200);
    expect(await typesOf(asset.id)).toEqual(all('image'));
    expect(await typedListing({ tags: t, record_type: 'dataset' })).toEqual([]);
    expect(await typedListing({ tags: t, record_type: 'image' })).toEqual(['typed']);
    expect(await typedListing({ metadata: `site:${m}`, record_type: 'dataset' })).toEqual([]);
    expect(await typedQuery(t, ['image'])).toEqual(['typed']);

    // A new type with new tags, with new metadata, with both: the remade postings read it from the row, the others follow it.
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ record_type: 'model', tags: [t, 'extra'] }).expect(200);
    expect(await typesOf(asset.id)).toEqual([{ kind: 'number', record_type: 'model' }, ...Array.from({ length: 2 }, () => ({ kind: 'tag', record_type: 'model' })), ...all('model').slice(2)]);
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ record_type: 'sample', metadata: { site: m, size: 5 } }).expect(200);
    expect((await typesOf(asset.id)).every((row) => row.record_type === 'sample')).toBe(true);
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ record_type: 'notebook', tags: [t], metadata: { site: m, size: 4 } }).expect(200);
    expect(await typesOf(asset.id)).toEqual(all('notebook'));
    expect(await typedQuery(t, ['notebook'])).toEqual(['typed']);
    expect(await typedListing({ metadata: `site:${m}`, record_type: 'notebook' })).toEqual(['typed']);

    await rebuildBlueGreen({ ...h.resources, inline: true }, assetsProjection);
    expect(await typesOf(asset.id)).toEqual(all('notebook'));
  });

  /** How many postings of the asset `table` holds, and whether each holds exactly its tags hashed as `cairn_text_hashes` makes them (written from Node or from SQL). */
  const postingHashesMatch = async (table: 'asset_metadata_order' | 'asset_tag_order', assetId: string) =>
    (
      await h.resources.pool.query<{ n: number; same: boolean }>(
        `select count(*)::integer as n, coalesce(bool_and(m.tag_hashes = coalesce(cairn_text_hashes(a.tags), '{}')), false) as same
         from ${table} m join assets a on a.id = m.asset_id where m.asset_id = $1`,
        [assetId],
      )
    ).rows[0];
  const tagHashesMatch = (assetId: string) => postingHashesMatch('asset_metadata_order', assetId);
  const taggedQuery = async (metadataValue: string, tag: string) =>
    (
      (
        await request(h.queryApp)
          .post('/api/assets/query/')
          .set(bearer(owner))
          .send({ where: { and: [{ field: 'metadata.site', op: 'eq', value: metadataValue }, { field: 'tags', op: 'contains', value: tag }] } })
          .expect(200)
      ).body as { title: string }[]
    ).map((a) => a.title);

  it("the tags every metadata posting holds hashed (migration 0048) follow the asset's: at creation, new tags alone, with new metadata, and through a rebuild", async () => {
    const [m, t] = [marker(), marker()];
    // Tags of several scripts and lengths: Node's hash must be PostgreSQL's.
    const asset = await createAsset(h, owner, { title: 'tagged', tags: [t, 'Ωmega', '雪の結晶', 'x'.repeat(100)], metadata: { site: m, depth: { max: 3 } } });
    await createAsset(h, owner, { title: 'untagged', tags: ['other'], metadata: { site: m } });
    await h.resources.pool.query('analyze assets');
    expect(await tagHashesMatch(asset.id)).toEqual({ n: 2, same: true });
    expect(await taggedQuery(m, t)).toEqual(['tagged']);
    expect(await typedListing({ metadata: `site:${m}`, tags: '雪の結晶' })).toEqual(['tagged']);

    // New tags alone: the postings follow them, and the walks find the asset by them.
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ tags: ['fresh'] }).expect(200);
    expect(await tagHashesMatch(asset.id)).toEqual({ n: 2, same: true });
    expect(await taggedQuery(m, t)).toEqual([]);
    expect(await taggedQuery(m, 'fresh')).toEqual(['tagged']);
    // No tags at all: an empty set, which holds no tag.
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ tags: [] }).expect(200);
    expect(await tagHashesMatch(asset.id)).toEqual({ n: 2, same: true });
    expect(await taggedQuery(m, 'fresh')).toEqual([]);
    // New metadata with new tags, and new metadata alone: the remade postings read them from the row.
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ tags: [t], metadata: { site: m } }).expect(200);
    expect(await tagHashesMatch(asset.id)).toEqual({ n: 1, same: true });
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ metadata: { site: m, size: 2 } }).expect(200);
    expect(await tagHashesMatch(asset.id)).toEqual({ n: 2, same: true });
    expect(await taggedQuery(m, t)).toEqual(['tagged']);

    await rebuildBlueGreen({ ...h.resources, inline: true }, assetsProjection);
    expect(await tagHashesMatch(asset.id)).toEqual({ n: 2, same: true });
    expect(await taggedQuery(m, t)).toEqual(['tagged']);
  });

  const tagPostingHashesMatch = (assetId: string) => postingHashesMatch('asset_tag_order', assetId);

  it("the tags every tag posting holds hashed (migration 0049) follow the asset's: at creation, new tags, a new record type alone, and through a rebuild", async () => {
    const [t, u] = [marker(), marker()];
    // Tags of several scripts and lengths: Node's hash must be PostgreSQL's.
    const asset = await createAsset(h, owner, { title: 'paired', tags: [t, u, 'Ωmega', '雪の結晶', 'x'.repeat(100)] });
    await createAsset(h, owner, { title: 'single', tags: [t] });
    await h.resources.pool.query('analyze assets');
    expect(await tagPostingHashesMatch(asset.id)).toEqual({ n: 5, same: true });
    expect(await typedListing({ tags: `${t},${u}` })).toEqual(['paired']);
    expect(await typedListing({ tags: `${t},雪の結晶` })).toEqual(['paired']);
    expect(await typedListing({ tags: t })).toEqual(['single', 'paired']);

    // New tags: the postings are remade from the row, and the walks find the asset by them.
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ tags: [t, 'fresh'] }).expect(200);
    expect(await tagPostingHashesMatch(asset.id)).toEqual({ n: 2, same: true });
    expect(await typedListing({ tags: `${t},${u}` })).toEqual([]);
    expect(await typedListing({ tags: `${t},fresh` })).toEqual(['paired']);
    // A new record type alone keeps them.
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ record_type: 'model' }).expect(200);
    expect(await tagPostingHashesMatch(asset.id)).toEqual({ n: 2, same: true });
    expect(await typedListing({ tags: `fresh,${t}`, record_type: 'model' })).toEqual(['paired']);

    await rebuildBlueGreen({ ...h.resources, inline: true }, assetsProjection);
    expect(await tagPostingHashesMatch(asset.id)).toEqual({ n: 2, same: true });
    expect(await typedListing({ tags: `${t},fresh` })).toEqual(['paired']);
  });
});

