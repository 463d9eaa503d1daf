import { describe, expect, it } from 'vitest';
import { compileOnlyDb as db } from '../compile-only-db.ts';
import { listConditions, type AssetListFilter } from './asset-filters.ts';
import { listingDriver } from './driver-choice.ts';
import { pageStatement } from './page-statements.ts';
import { partWalk } from './walk-sizes.ts';

/** A driven statement of the starred or rest part, compiled, for this caller and filter. */
function driven(userId: string, principals: string[], filter: Partial<AssetListFilter>, part: 'starred' | 'rest', kept: boolean) {
  const full = { metadata: [], recordTypes: [], tags: [], titles: [], ...filter };
  const driver = listingDriver(full);
  if (!driver) throw new Error('no driver');
  const facts = kept ? { p: principals, restricted: false, keptFor: userId } : { p: principals };
  const request = { viewer: { userId, isSystemAdmin: false }, conditions: { where: listConditions(full, false), driver }, after: null, limit: 100, deniedProjects: [], scanCap: 10_000, facts };
  return pageStatement(request, facts, 101, { kind: 'driven', part, driver: partWalk(driver, part, userId), walkCap: 1_010 }).compile(db);
}

/** The starred part of a caller with few stars, read whole (a window with no bound), compiled. */
function fewStarsPart(userId: string, principals: string[], filter: Partial<AssetListFilter>, bound: string | null) {
  const full = { metadata: [], recordTypes: [], tags: [], titles: [], ...filter };
  const facts = { p: principals, restricted: false, keptFor: userId };
  const request = { viewer: { userId, isSystemAdmin: false }, conditions: { where: listConditions(full, false), driver: listingDriver(full) }, after: null, limit: 100, deniedProjects: [], scanCap: 10_000, facts };
  return pageStatement(request, facts, 101, { kind: 'window', part: 'starred', bound, fewStars: true }).compile(db);
}

/** The rest's first driven walk with the caller's few stars read first, in one statement (asset-page.ts). */
function starredFirst(userId: string, principals: string[], filter: Partial<AssetListFilter>) {
  const full = { metadata: [], recordTypes: [], tags: [], titles: [], ...filter };
  const driver = listingDriver(full);
  if (!driver) throw new Error('no driver');
  const facts = { p: principals, restricted: false, keptFor: userId };
  const request = { viewer: { userId, isSystemAdmin: false }, conditions: { where: listConditions(full, false), driver }, after: null, limit: 100, deniedProjects: [], scanCap: 10_000, facts };
  return pageStatement(request, facts, 101, { kind: 'driven', part: 'rest', driver, walkCap: 2_020, starredFirst: true }).compile(db);
}

describe('a driven statement, whose plan is kept by its text', () => {
  it('is the same text for every caller and every value of its filters: they are all parameters', () => {
    const me = ['0190f5a2-8a3c-7b4d-9e1f-2a3b4c5d6e7f', '0190f5a2-8a3c-7b4d-9e1f-000000000001'] as const;
    for (const part of ['starred', 'rest'] as const) {
      for (const kept of [false, true]) {
        for (const [one, other] of [
          [{ tags: ['sediment', 'plankton'] }, { tags: ['ice', 'core'] }],
          [{ recordTypes: ['dataset'] }, { recordTypes: ['image'] }],
          [{ metadata: ['instrument:INST-007'] }, { metadata: ['site.name:Ridge'] }],
          [{ ownerId: me[1] }, { ownerId: me[0] }],
          [{ q: 'frost' }, { q: 'salt' }],
          [{ titlePrefix: 'coastal sed' }, { titlePrefix: 'alpine snow' }],
        ] as const) {
          const a = driven(me[0], ['*', `u:${me[0]}`, 'g:a'], one, part, kept);
          const b = driven(me[1], ['*', `u:${me[1]}`, 'o:b', 'p:c'], other, part, kept);
          expect(a.sql, JSON.stringify({ part, kept, one })).toBe(b.sql);
          expect(a.sql.startsWith('/* cairn:kept-plan */')).toBe(true);
          // No caller's id or filter value is written into the text.
          for (const value of [me[0], me[1], 'sediment', 'dataset', 'INST-007', 'frost', 'coastal']) expect(a.sql.includes(value), value).toBe(false);
        }
      }
    }
  });

  it("the starred part of a caller with few stars, read whole, is kept too, with the same text for every caller and value; a bounded window's plan is not", () => {
    const me = ['0190f5a2-8a3c-7b4d-9e1f-2a3b4c5d6e7f', '0190f5a2-8a3c-7b4d-9e1f-000000000001'] as const;
    for (const [one, other, checked] of [
      [{ tags: ['sediment'] }, { tags: ['ice'] }, 's.tag_hashes'],
      [{ q: 'frost' }, { q: 'salt' }, 'strpos(s.search_text'],
      [{ recordTypes: ['dataset'] }, { recordTypes: ['image'] }, 's.record_type_hash'],
      [{ metadata: ['instrument:INST-007'] }, { metadata: ['site.name:Ridge'] }, undefined],
    ] as const) {
      for (const [a, b] of [
        [fewStarsPart(me[0], ['*', `u:${me[0]}`], one, null), fewStarsPart(me[1], ['*', `u:${me[1]}`, 'g:x'], other, null)],
        [starredFirst(me[0], ['*', `u:${me[0]}`], one), starredFirst(me[1], ['*', `u:${me[1]}`, 'g:x'], other)],
      ] as const) {
        expect(a.sql).toBe(b.sql);
        expect(a.sql.startsWith('/* cairn:kept-plan */')).toBe(true);
        for (const value of [me[0], me[1], 'sediment', 'frost', 'dataset', 'INST-007']) expect(a.sql.includes(value), value).toBe(false);
        // What the stars hold of their assets is checked on each star, where they hold it.
        if (checked) expect(a.sql, JSON.stringify(one)).toContain(checked);
      }
      expect(fewStarsPart(me[0], ['*'], one, '2026-01-01T00:00:00.000000Z').sql.startsWith('/* cairn:kept-plan */')).toBe(false);
    }
  });
});
