import { assetsProjection, keptTermsMost, rebuildBlueGreen } from '@cairn/projections';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyPage } from '../collections/collections-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { join, organization } from '../projects/projects-fixtures.ts';
import { fanOfAssets, type Asset } from './assets-fixtures.ts';
import { queryString, type Query } from './asset-listing-fixtures.ts';

/**
 * Each star also holds its asset's owner and metadata terms (migration 0053), which the
 * starred part of a caller with few stars checks on the star's index entry beside a
 * metadata value's or an owner's walk (order-drivers.ts `starEntryCheck`): the assets
 * projection writes them with the star and again when the metadata or the owner changes,
 * so an asset leaves the listing of its old value and joins its new one's. An asset with
 * more terms than its row keeps, and a star written before its asset's terms were known,
 * hold none (null), and are listed by the asset's own metadata.
 */
describe('the owner and metadata terms a star holds', () => {
  let h: Harness;
  let owner: User;
  let fan: User;
  let assets: Asset[];

  beforeAll(async () => {
    // Windows of 10 make 5 stars the bound of few (asset-page.ts starsAtOnce): the fan's 4 are read whole, checked on their copies.
    h = await startHarness('all', { CAIRN_LISTING_WALK_ROWS: '3', CAIRN_LISTING_WINDOW_ROWS: '10' });
    ({ owner, fan, assets } = await fanOfAssets(
      h,
      [
        { title: 'Glacier survey', metadata: { site: 'north', depth: 10 } },
        { title: 'Glacier melt', metadata: { site: 'south' } },
        { title: 'Desert wind', metadata: { site: 'north', tools: ['drone', 'kite'] } },
        { title: 'Harbour tide', metadata: { site: 'east' } },
        { title: 'Glacier ice', metadata: { site: 'north' } },
      ],
      4,
    ));
  }, 120_000);
  afterAll(async () => h?.close());

  const a = (i: number) => assets[i] as Asset;

  /** Each of the fan's stars with its copies, and what its asset's postings and row say they should be. */
  async function starCopies() {
    const { rows } = await h.resources.pool.query<{ asset_id: string; owner: string | null; asset_owner: string; terms: string[] | null; postings: string[]; asset_terms: string[] | null }>(
      `select s.asset_id, s.owner_id as owner, a.owner_id as asset_owner,
              case when s.metadata_terms is not null then array(select t::text from unnest(s.metadata_terms) t order by t::text) end as terms,
              array(select m.term::text from asset_metadata_order m where m.asset_id = s.asset_id order by m.term::text) as postings,
              case when a.metadata_terms is not null then array(select t::text from unnest(a.metadata_terms) t order by t::text) end as asset_terms
       from asset_stars s join assets a on a.id = s.asset_id where s.user_id = $1`,
      [fan.id],
    );
    return rows;
  }

  const listed = async (query: Query) => (await everyPage(h, fan, `/api/assets/?${queryString(query)}`, 2)).map((x) => x.id);

  it("are the asset's owner and terms when starred, and the starred matches come first", async () => {
    const rows = await starCopies();
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row.owner).toBe(row.asset_owner);
      expect(row.terms).toEqual(row.postings);
      expect(row.asset_terms).toEqual(row.postings);
      expect(row.terms?.length).toBeGreaterThan(0);
    }
    expect(await listed({ metadata: 'site:north' })).toEqual([a(2).id, a(0).id, a(4).id]);
    expect(await listed({ metadata: 'tools:kite' })).toEqual([a(2).id]);
    expect(await listed({ owner_id: owner.id })).toEqual([a(3).id, a(2).id, a(1).id, a(0).id, a(4).id]);
  });

  it('follow a change of the metadata or of the owner, and the listings follow them', async () => {
    await request(h.commandApp).patch(`/api/assets/${a(0).id}/`).set(bearer(owner)).send({ metadata: { site: 'west' } }).expect(200);
    // A change of neither leaves them as they were.
    await request(h.commandApp).patch(`/api/assets/${a(2).id}/`).set(bearer(owner)).send({ description: 'Sand' }).expect(200);
    const organizationId = await organization(h, 'Star copies');
    await join(h, organizationId, owner, 'admin');
    await request(h.commandApp).patch(`/api/assets/${a(3).id}/`).set(bearer(owner)).send({ owner_type: 'organization', owner_id: organizationId }).expect(200);
    const rows = await starCopies();
    for (const row of rows) {
      expect(row.owner).toBe(row.asset_owner);
      expect(row.terms).toEqual(row.postings);
    }
    expect(rows.find((r) => r.asset_id === a(3).id)?.owner).toBe(organizationId);
    expect(await listed({ metadata: 'site:north' })).toEqual([a(2).id, a(4).id]);
    expect(await listed({ metadata: 'site:west' })).toEqual([a(0).id]);
    expect(await listed({ owner_id: owner.id })).toEqual([a(2).id, a(1).id, a(0).id, a(4).id]);
    expect(await listed({ owner_id: organizationId })).toEqual([a(3).id]);
  });

  it("are what the starred part checks: a star whose known copies say otherwise is not fetched, and a title's change copies no terms over those of an asset that keeps none", async () => {
    // As the migration left a star of an asset written before it: the asset's row keeps no terms, its star was given the postings'.
    await h.resources.pool.query('update assets set metadata_terms = null where id = $1', [a(2).id]);
    await request(h.commandApp).patch(`/api/assets/${a(2).id}/`).set(bearer(owner)).send({ title: 'Desert gust' }).expect(200);
    const row = (await starCopies()).find((r) => r.asset_id === a(2).id);
    expect(row?.asset_terms).toBeNull();
    expect(row?.terms).toEqual(row?.postings);
    // Copies that no longer say what the asset holds: the page trusts them, so the asset leaves both listings (proof that they are read).
    await h.resources.pool.query(`update asset_stars set metadata_terms = '{}', owner_id = gen_random_uuid() where user_id = $1 and asset_id = $2`, [fan.id, a(2).id]);
    expect(await listed({ metadata: 'site:north' })).toEqual([a(4).id]);
    expect(await listed({ owner_id: owner.id })).toEqual([a(1).id, a(0).id, a(4).id]);
    await h.resources.pool.query(
      `update asset_stars s set owner_id = a.owner_id, metadata_terms = array(select m.term from asset_metadata_order m where m.asset_id = a.id order by m.term) from assets a where a.id = s.asset_id and s.user_id = $1`,
      [fan.id],
    );
    expect(await listed({ metadata: 'site:north' })).toEqual([a(2).id, a(4).id]);
    // The row as the projection writes it, as a rebuild will (below).
    await h.resources.pool.query('update assets set metadata_terms = array(select m.term from asset_metadata_order m where m.asset_id = $1 order by m.term) where id = $1', [a(2).id]);
  });

  it(`are none (null) on an asset with more than ${keptTermsMost} terms, whose star is still listed by the asset's own metadata`, async () => {
    const many = Object.fromEntries(Array.from({ length: keptTermsMost + 1 }, (_, i) => [`k${i}`, i]));
    await request(h.commandApp).patch(`/api/assets/${a(1).id}/`).set(bearer(owner)).send({ metadata: { ...many, site: 'north' } }).expect(200);
    const row = (await starCopies()).find((r) => r.asset_id === a(1).id);
    expect(row?.postings).toHaveLength(keptTermsMost + 2);
    expect(row?.asset_terms).toBeNull();
    expect(row?.terms).toBeNull();
    expect(await listed({ metadata: 'site:north' })).toEqual([a(2).id, a(1).id, a(4).id]);
    expect(await listed({ metadata: 'k3:3' })).toEqual([a(1).id]);
  });

  it('are the same after a rebuild of the assets projection, whose batches gather the stars after their assets (and small batches)', async () => {
    const before = (await starCopies()).sort((x, y) => x.asset_id.localeCompare(y.asset_id));
    for (const batchSize of [500, 2]) {
      await rebuildBlueGreen({ ...h.resources, inline: true, batchSize }, assetsProjection);
      const after = (await starCopies()).sort((x, y) => x.asset_id.localeCompare(y.asset_id));
      expect(after, `batches of ${batchSize}`).toEqual(before);
    }
    expect(await listed({ metadata: 'site:north' })).toEqual([a(2).id, a(1).id, a(4).id]);
  });

  it("unknown (null, as a star of an asset written before its terms were kept holds), still lists the asset by its own metadata and owner", async () => {
    await h.resources.pool.query('update asset_stars set owner_id = null, metadata_terms = null where user_id = $1', [fan.id]);
    expect(await listed({ metadata: 'site:north' })).toEqual([a(2).id, a(1).id, a(4).id]);
    expect(await listed({ metadata: 'tools:drone' })).toEqual([a(2).id]);
    expect(await listed({ owner_id: owner.id })).toEqual([a(2).id, a(1).id, a(0).id, a(4).id]);
  });
});
