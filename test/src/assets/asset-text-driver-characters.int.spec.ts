import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyPage } from '../collections/collections-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';
import { listingOrder, queryString } from './asset-listing-fixtures.ts';

/**
 * A title prefix and `q` walk migration 0034's indexes, keyed on the first lowercased
 * characters of the title, and check the text on the entries (order-drivers.ts). Their
 * answers must be the filters' own (`lower(title) like lower(<the value>)%`, lowercased as
 * PostgreSQL lowercases the title, a word-final 'Σ' as 'σ'; its `%`,
 * `_` and `\` taken literally), whatever the characters: LIKE's wildcards and escape,
 * letters whose lowercase has another number of code points ('İ'), or none ('ß'), characters
 * of two UTF-16 units (PostgreSQL's `left` counts code points), and
 * walks so short (CAIRN_LISTING_WALK_ROWS) that every page hands over to the windows,
 * across the starred part and the rest, for a caller with few stars and one with exactly
 * the bound of few.
 */
const titles = [
  'Ab%cdefghij one',
  'Ab_cdefghij two',
  'AbXcdefghij three',
  'Ab\\cdefghij four',
  'ab%CDEFGHIJ five',
  'İstanbul harbour',
  'istanbul market',
  'i\u0307stanbul decomposed',
  'ISTANBUL capitals',
  'Straße eins',
  'STRASSE zwei',
  'straße drei',
  'Ωmega long title',
  'ωmega long title',
  '%%%percent',
  '___under',
  '😀😀😀 smiles',
  '😀😀😀😀😀😀 more smiles',
  'ΟΔΟΣ ΑΘΗΝΑΣ',
  'οδοσ πειραιωσ',
];
const prefixes = ['ab%', 'AB_', 'ab\\', 'abx', 'ab%cde', 'Ab_cdefghij', 'ab%cdefghij one', 'İst', 'İstanbul', 'ist', 'i\u0307st', 'ISTANB', 'STRAß', 'straße', 'ωme', 'ΩMEGA LONG', '%%%', '___', '%', '😀😀😀', '😀😀😀😀', '😀😀😀😀😀😀 m', 'ab', 'fil', 'filler 1', 'ΟΔΟΣ', 'ΟΔΟΣ ΑΘΗΝΑΣ', 'οδοσ α'];
/** Titles with an alias: `q` is checked on the two lowercased and joined by a line feed (migration 0037), so nothing may match across them. */
const withAliases: readonly (readonly [string, string])[] = [
  ['Tail end', 'head-start'],
  ['Line one\nline two', 'x\ny'],
  ['Ünïcode', 'ÄLIAS-ß'],
];
const substrings = ['%', '_', '\\', '😀', 'ß', 'İ', 'b%c', 'ANBUL', 'ller 1', 'end\nhead', 'end\n', '\nhead', 'one\nline', 'x\ny', 'two\nx', 'älias', 'ode\nä', 'head-s', 'ΑΘΗΝΑΣ', 'ΟΔΟΣ', 'πειραιωσ'];

describe('text drivers, character by character', () => {
  let h: Harness;
  let owner: User;
  let reader: User;
  // Lowercased by PostgreSQL in `expected` (lower($1)), as the title is: JavaScript's own lowercase differs ('İ', a word-final 'Σ').
  const escaped = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

  beforeAll(async () => {
    // Walks of 5 matches (20 entries for a text driver): every page meets the hand-over.
    h = await startHarness('all', { CAIRN_LISTING_WALK_ROWS: '5', CAIRN_LISTING_WINDOW_ROWS: '8' });
    [owner, reader] = [await h.createUser(), await h.createUser()];
    const made: Asset[] = [];
    for (const [i, title] of titles.entries()) {
      made.push(await createAsset(h, owner, { title }));
      for (let k = 0; k < 3; k += 1) made.push(await createAsset(h, owner, { title: `Filler ${i}${k}` }));
    }
    for (const [title, alias] of withAliases) made.push(await createAsset(h, owner, { title, alias }));
    // The reader sees every other asset. Windows of 8 make 4 stars the bound of few stars (asset-page.ts
    // starsAtOnce): the owner has fewer, whose starred part walks the stars, the reader exactly as many.
    for (const [i, asset] of made.entries()) if (i % 2 === 0) await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: reader.id, flags: 1 }]);
    const star = async (caller: User, i: number) => request(h.commandApp).post(`/api/assets/${(made[i] as Asset).id}/star/`).set(bearer(caller)).expect(204);
    for (const i of [0, 8, 41]) await star(owner, i);
    for (const i of [0, 4, 8, 20]) await star(reader, i);
    await h.resources.pool.query('analyze assets');
    await h.resources.pool.query('analyze asset_stars');
  }, 120_000);
  afterAll(async () => h?.close());

  /** The filter as SQL answers it, for the caller, in the listing's order. */
  async function expected(caller: User, condition: string, value: string): Promise<string[]> {
    const { rows } = await h.resources.pool.query<{ id: string; created_at: string }>(
      `select a.id, to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as created_at
       from assets a where ${condition} and a.readers && cairn_principals($2)`,
      [value, caller.id],
    );
    const mine = new Set((await h.resources.pool.query<{ asset_id: string }>('select asset_id from asset_stars where user_id = $1', [caller.id])).rows.map((r) => r.asset_id));
    return rows.sort(listingOrder(mine)).map((r) => r.id);
  }

  async function everyQueryPage(caller: User, where: unknown, limit: number): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 200; page += 1) {
      const res = await request(h.queryApp)
        .post(`/api/assets/query/?${queryString({ limit, ...(cursor ? { cursor } : {}) })}`)
        .set(bearer(caller))
        .send({ where });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      seen.push(...(res.body as Asset[]).map((a) => a.id));
      if (res.headers['x-has-more'] === 'false') return seen;
      cursor = res.headers['x-next-cursor'] as string;
    }
    throw new Error('the query never ended');
  }

  it('a title prefix answers what its LIKE answers, listed and queried, page by page', async () => {
    for (const caller of [owner, reader]) {
      for (const prefix of prefixes) {
        const want = await expected(caller, 'lower(a.title) like lower($1)', `${escaped(prefix)}%`);
        for (const limit of [1, 3]) {
          const listed = await everyPage(h, caller, `/api/assets/?${queryString({ title_prefix: prefix })}`, limit);
          expect(listed.map((a) => a.id), `title_prefix ${prefix} limit ${limit}`).toEqual(want);
        }
        expect(await everyQueryPage(caller, { field: 'title', op: 'prefix', value: prefix }, 2), `query prefix ${prefix}`).toEqual(want);
      }
    }
  }, 180_000);

  it('q answers what its LIKE answers, page by page', async () => {
    for (const caller of [owner, reader]) {
      for (const q of substrings) {
        const want = await expected(caller, '(lower(a.title) like lower($1) or lower(a.alias) like lower($1))', `%${escaped(q)}%`);
        for (const limit of [1, 4]) {
          const listed = await everyPage(h, caller, `/api/assets/?${queryString({ q })}`, limit);
          expect(listed.map((a) => a.id), `q ${q} limit ${limit}`).toEqual(want);
        }
      }
    }
  }, 180_000);
});
