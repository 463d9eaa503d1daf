import { assetsProjection, rebuildBlueGreen } from '@cairn/projections';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyPage } from '../collections/collections-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { fanOfAssets, type Asset } from './assets-fixtures.ts';
import { queryString } from './asset-listing-fixtures.ts';

/**
 * Each star holds its asset's lowercased title and alias (migration 0040), which the
 * starred part of a `q` listing checks on the star's index entry (order-drivers.ts): the
 * assets projection writes it with the star and again when the title or alias changes, so
 * a renamed asset leaves the listing of its old text and joins its new one's.
 */
describe('the text a star holds', () => {
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
          ['Glacier survey', 'gl-1'],
          ['Glacier melt', 'GL-2'],
          ['Desert wind', 'dw-1'],
          ['Harbour tide', 'ht-1'],
          ['Glacier ice', 'gl-3'],
        ] as const
      ).map(([title, alias]) => ({ title, alias })),
      4,
    ));
  }, 120_000);
  afterAll(async () => h?.close());

  const a = (i: number) => assets[i] as Asset;

  /** Each of the fan's stars with its text and its asset's. */
  async function starTexts() {
    const { rows } = await h.resources.pool.query<{ asset_id: string; star: string | null; asset: string }>(
      'select s.asset_id, s.search_text as star, a.search_text as asset from asset_stars s join assets a on a.id = s.asset_id where s.user_id = $1',
      [fan.id],
    );
    return rows;
  }

  const listed = async (q: string) => (await everyPage(h, fan, `/api/assets/?${queryString({ q })}`, 2)).map((x) => x.id);

  it('is the asset\'s lowercased title and alias when starred, and the starred matches come first', async () => {
    const rows = await starTexts();
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row.star).toBe(row.asset);
    expect(rows.find((r) => r.asset_id === a(1).id)?.star).toBe('glacier melt\ngl-2');
    expect(await listed('glacier')).toEqual([a(1).id, a(0).id, a(4).id]);
    expect(await listed('gl-')).toEqual([a(1).id, a(0).id, a(4).id]);
  });

  it('follows a change of the title or of the alias, and the listings follow it', async () => {
    await request(h.commandApp).patch(`/api/assets/${a(0).id}/`).set(bearer(owner)).send({ title: 'Desert survey' }).expect(200);
    await request(h.commandApp).patch(`/api/assets/${a(3).id}/`).set(bearer(owner)).send({ alias: 'GLACIER-LINK' }).expect(200);
    // A change of neither leaves the text as it was.
    await request(h.commandApp).patch(`/api/assets/${a(2).id}/`).set(bearer(owner)).send({ description: 'Sand' }).expect(200);
    const rows = await starTexts();
    for (const row of rows) expect(row.star).toBe(row.asset);
    expect(rows.find((r) => r.asset_id === a(0).id)?.star).toBe('desert survey\ngl-1');
    expect(rows.find((r) => r.asset_id === a(3).id)?.star).toBe('harbour tide\nglacier-link');
    expect(await listed('glacier')).toEqual([a(3).id, a(1).id, a(4).id]);
    expect(await listed('desert')).toEqual([a(2).id, a(0).id]);
  });

  it('is written again with a star given again, and goes with the star', async () => {
    await request(h.commandApp).delete(`/api/assets/${a(1).id}/star/`).set(bearer(fan)).expect(204);
    expect((await starTexts()).some((r) => r.asset_id === a(1).id)).toBe(false);
    expect(await listed('glacier')).toEqual([a(3).id, a(4).id, a(1).id]);
    await request(h.commandApp).patch(`/api/assets/${a(1).id}/`).set(bearer(owner)).send({ title: 'Glacier calving' }).expect(200);
    await request(h.commandApp).post(`/api/assets/${a(1).id}/star/`).set(bearer(fan)).expect(204);
    expect((await starTexts()).find((r) => r.asset_id === a(1).id)?.star).toBe('glacier calving\ngl-2');
    expect(await listed('calving')).toEqual([a(1).id]);
  });

  it('is the same after a rebuild of the assets projection, whose batches gather the stars after their assets (and small batches)', async () => {
    const before = (await starTexts()).sort((x, y) => x.asset_id.localeCompare(y.asset_id));
    for (const batchSize of [500, 2]) {
      await rebuildBlueGreen({ ...h.resources, inline: true, batchSize }, assetsProjection);
      const after = (await starTexts()).sort((x, y) => x.asset_id.localeCompare(y.asset_id));
      expect(after, `batches of ${batchSize}`).toEqual(before);
      for (const row of after) expect(row.star).not.toBeNull();
    }
    expect(await listed('glacier')).toEqual([a(3).id, a(1).id, a(4).id]);
  });

  it('unknown (null, as a row written before its asset\'s might hold), still lists the asset by its own text', async () => {
    await h.resources.pool.query('update asset_stars set search_text = null where user_id = $1', [fan.id]);
    expect(await listed('glacier')).toEqual([a(3).id, a(1).id, a(4).id]);
    expect(await listed('survey')).toEqual([a(0).id]);
  });
});
