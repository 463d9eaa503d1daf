import { assetsProjection, rebuildBlueGreen } from '@cairn/projections';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyPage } from '../collections/collections-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset, fanOfAssets, type Asset } from './assets-fixtures.ts';
import { queryString } from './asset-listing-fixtures.ts';

/**
 * Each star holds its asset's record type and tags (migration 0041), which the starred part
 * of a listing by record type or tags checks on the star's index entry (walk-sizes.ts
 * partWalk): the assets projection writes them with the star and again when they change,
 * so an asset retyped or retagged leaves the starred part of its old filter and joins its new one's.
 */
describe('the record type and tags a star holds', () => {
  let h: Harness;
  let owner: User;
  let fan: User;
  let assets: Asset[];

  beforeAll(async () => {
    // Windows of 4 make 2 stars the bound of few (asset-page.ts starsAtOnce): the fan's starred part walks its stars.
    h = await startHarness('all', { CAIRN_LISTING_WALK_ROWS: '3', CAIRN_LISTING_WINDOW_ROWS: '4' });
    ({ owner, fan, assets } = await fanOfAssets(
      h,
      (
        [
          ['Core log', 'dataset', ['ice', 'core']],
          ['Core photo', 'image', ['ice']],
          ['Dune map', 'dataset', ['sand']],
          ['Tide table', 'dataset', ['sea', 'ice']],
          ['Ice sheet', 'dataset', ['ice', 'core']],
        ] as const
      ).map(([title, recordType, tags]) => ({ title, record_type: recordType, tags: [...tags] })),
      4,
    ));
  }, 120_000);
  afterAll(async () => h?.close());

  const a = (i: number) => assets[i] as Asset;

  /** Each of the fan's stars with its copies and its asset's own. */
  async function starCopies() {
    const { rows } = await h.resources.pool.query<{ asset_id: string; star: [string | null, string[] | null]; asset: [string, string[]] }>(
      `select s.asset_id, json_build_array(s.record_type, s.tags) as star, json_build_array(a.record_type, a.tags) as asset
       from asset_stars s join assets a on a.id = s.asset_id where s.user_id = $1`,
      [fan.id],
    );
    return rows;
  }

  const listed = async (filter: { record_type?: string; tags?: string }) => (await everyPage(h, fan, `/api/assets/?${queryString(filter)}`, 2)).map((x) => x.id);

  it("are the asset's when starred, and the starred matches come first", async () => {
    const rows = await starCopies();
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row.star).toEqual(row.asset);
    // Starred first (newest first), then the rest.
    expect(await listed({ record_type: 'dataset' })).toEqual([a(3).id, a(2).id, a(0).id, a(4).id]);
    expect(await listed({ tags: 'ice' })).toEqual([a(3).id, a(1).id, a(0).id, a(4).id]);
    expect(await listed({ tags: 'ice,core' })).toEqual([a(0).id, a(4).id]);
  });

  it('follow a change of the record type or of the tags, and the listings follow them', async () => {
    await request(h.commandApp).patch(`/api/assets/${a(0).id}/`).set(bearer(owner)).send({ record_type: 'notebook' }).expect(200);
    await request(h.commandApp).patch(`/api/assets/${a(1).id}/`).set(bearer(owner)).send({ tags: ['ice', 'core'] }).expect(200);
    // A change of neither leaves them as they were.
    await request(h.commandApp).patch(`/api/assets/${a(2).id}/`).set(bearer(owner)).send({ description: 'Sand' }).expect(200);
    const rows = await starCopies();
    for (const row of rows) expect(row.star).toEqual(row.asset);
    expect(rows.find((r) => r.asset_id === a(0).id)?.star).toEqual(['notebook', ['ice', 'core']]);
    expect(await listed({ record_type: 'dataset' })).toEqual([a(3).id, a(2).id, a(4).id]);
    expect(await listed({ record_type: 'notebook' })).toEqual([a(0).id]);
    expect(await listed({ tags: 'ice,core' })).toEqual([a(1).id, a(0).id, a(4).id]);
  });

  it('are the same after a rebuild of the assets projection (and small batches)', async () => {
    const before = (await starCopies()).sort((x, y) => x.asset_id.localeCompare(y.asset_id));
    for (const batchSize of [500, 2]) {
      await rebuildBlueGreen({ ...h.resources, inline: true, batchSize }, assetsProjection);
      const after = (await starCopies()).sort((x, y) => x.asset_id.localeCompare(y.asset_id));
      expect(after, `batches of ${batchSize}`).toEqual(before);
    }
    expect(await listed({ tags: 'ice,core' })).toEqual([a(1).id, a(0).id, a(4).id]);
  });

  it('hold the longest tags an asset may have, starred and retagged: the index holds them hashed', async () => {
    // 50 tags of 100 characters, 3 bytes each in UTF-8: 15 KB, where an index entry holds at most 2,704 bytes.
    const long = (n: number, mark: string) => Array.from({ length: 50 }, (_, i) => `${mark.repeat(97)}${String(i + n).padStart(3, '0')}`);
    const big = await createAsset(h, owner, { title: 'Long tags', tags: long(0, '雪') });
    await request(h.commandApp).put(`/api/assets/${big.id}/permissions/`).set(bearer(owner)).send({ permissions: [{ subject_type: 'user', subject_id: fan.id, flags: 1 }] }).expect(200);
    await request(h.commandApp).post(`/api/assets/${big.id}/star/`).set(bearer(fan)).expect(204);
    await request(h.commandApp).patch(`/api/assets/${big.id}/`).set(bearer(owner)).send({ tags: long(100, '氷') }).expect(200);
    const [first, second] = long(100, '氷');
    expect(await listed({ tags: `${first},${second}` })).toEqual([big.id]);
    expect(await listed({ tags: long(0, '雪')[0] ?? '' })).toEqual([]);
  });

  it("unknown (null, as a row written before its asset's might hold), still list the asset by its own", async () => {
    await h.resources.pool.query('update asset_stars set record_type = null, tags = null where user_id = $1', [fan.id]);
    expect(await listed({ record_type: 'dataset' })).toEqual([a(3).id, a(2).id, a(4).id]);
    expect(await listed({ tags: 'ice,core' })).toEqual([a(1).id, a(0).id, a(4).id]);
  });
});
