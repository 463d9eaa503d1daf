import { describe, expect, it } from 'vitest';
import { listingDriver } from './driver-choice.ts';
import { gathersByValue, nextWalk, orderWalk, partWalk, rangeGatherMost, standsInForDriver, walkCapOf, walkSizes, windowAfterWalk } from './walk-sizes.ts';
import type { OrderDriver } from './order-drivers.ts';

const owner = '0190f5a2-8a3c-7b4d-9e1f-2a3b4c5d6e7f';

describe('how far a part of a page walks', () => {
  it('sizes a walk whose yield is unknown: the order\'s or the stars\' from twice the rows, a text\'s from ten times, none for a walk of matches', () => {
    const q = listingDriver({ tags: [], recordTypes: [], q: 'frost' });
    const tag = listingDriver({ tags: ['a'], recordTypes: [] });
    if (!q || !tag) throw new Error('no driver');
    const stars = partWalk(orderWalk, 'starred', owner);
    const starredQ = partWalk(q, 'starred', owner);
    expect(stars.primary).toEqual({ kind: 'stars', userId: owner });
    expect(starredQ.primary).toEqual({ kind: 'stars', userId: owner, q: 'frost' });
    expect(partWalk(q, 'rest', owner)).toBe(q);
    expect(partWalk(tag, 'rest', owner)).toBe(tag);
    expect(walkSizes(orderWalk, 101, 5_000)).toEqual({ first: 202, most: 2_000 });
    expect(walkSizes(stars, 10, 5_000)).toEqual({ first: 100, most: 2_000 });
    // CAIRN_LISTING_WALK_ROWS bounds the first walk; a walk of the order goes on within its own bound.
    expect(walkSizes(orderWalk, 101, 7)).toEqual({ first: 7, most: 2_000 });
    expect(walkSizes(q, 101, 5_000)).toEqual({ first: 1_010, most: 64_640 });
    // q beside a tag joins the tag's postings over every entry read: four times, as before.
    expect(walkCapOf({ primary: { kind: 'q', value: 'frost' }, probedTags: ['a'] }, 101, 5_000)).toBe(8_080);
    expect(walkSizes(starredQ, 101, 5_000)).toEqual({ first: 1_010, most: 101_000 });
    expect(walkSizes(q, 101, 10)).toEqual({ first: 320, most: 320 });
    expect(walkSizes(tag, 101, 5_000)).toBeUndefined();
  });

  it("walks the stars, each checked on its entry, in the starred part of a record type or tags, at most 20,000 before the filter's own walk takes over", () => {
    const type = listingDriver({ tags: [], recordTypes: ['dataset'] });
    const tags = listingDriver({ tags: ['a', 'b'], recordTypes: [] });
    const owned = listingDriver({ tags: ['a'], recordTypes: [], ownerId: owner });
    if (!type || !tags || !owned) throw new Error('no driver');
    const starredType = partWalk(type, 'starred', owner);
    const starredTags = partWalk(tags, 'starred', owner);
    expect(starredType).toEqual({ primary: { kind: 'stars', userId: owner, recordType: 'dataset' }, probedTags: [] });
    expect(starredTags).toEqual({ primary: { kind: 'stars', userId: owner, tags: ['a', 'b'] }, probedTags: [] });
    // An owner's walk is the owner's in both parts: its assets are few.
    expect(partWalk(owned, 'starred', owner)).toBe(owned);
    expect([starredType, starredTags].map(standsInForDriver)).toEqual([true, true]);
    expect([partWalk(orderWalk, 'starred', owner), type].map(standsInForDriver)).toEqual([false, false]);
    expect(walkSizes(starredType, 101, 5_000)).toEqual({ first: 1_010, most: 20_000 });
    expect(walkSizes(starredTags, 10, 5_000)).toEqual({ first: 1_000, most: 20_000 });
  });

  it('first reads as many stars as the share the statistics give a tag or a record type needs, within the bound; never fewer than ten a row', () => {
    const tags = listingDriver({ tags: ['a', 'b'], recordTypes: [] });
    const type = listingDriver({ tags: [], recordTypes: ['notebook'] });
    if (!tags || !type) throw new Error('no driver');
    // One asset in 80 holds both tags: 101 rows need about 8,080 stars, a quarter more.
    expect(walkSizes(partWalk({ ...tags, share: 1 / 80 }, 'starred', owner), 101, 5_000)).toEqual({ first: 10_100, most: 20_000 });
    expect(walkSizes(partWalk({ ...type, share: 0.05 }, 'starred', owner), 101, 5_000)).toEqual({ first: 2_525, most: 20_000 });
    // Rarer than the bound allows: the short first walk, whose yield hands the part over; commoner than ten a row needs: ten a row.
    expect(walkSizes(partWalk({ ...tags, share: 0.0001 }, 'starred', owner), 101, 5_000)).toEqual({ first: 1_010, most: 20_000 });
    expect(walkSizes(partWalk({ ...tags, share: 0.0064 }, 'starred', owner), 101, 5_000)).toEqual({ first: 19_727, most: 20_000 });
    expect(walkSizes(partWalk({ ...type, share: 0.4 }, 'starred', owner), 101, 5_000)).toEqual({ first: 1_010, most: 20_000 });
    // The share is the driver's: its own walk (the rest) and the stars of the order keep their sizes.
    expect(walkSizes({ ...tags, share: 1 / 80 }, 101, 5_000)).toBeUndefined();
    expect(walkSizes({ ...partWalk(orderWalk, 'starred', owner), share: 0.01 }, 101, 5_000)).toEqual({ first: 202, most: 2_000 });
  });

  it("reads twenty times the rows of a tag's entries when it checks a record type or other tags on them, four with other tags joined to an owner's; the starred part checks one type on the stars", () => {
    const typedTag = listingDriver({ tags: ['a'], recordTypes: ['dataset'] });
    const typedTags = listingDriver({ tags: ['a', 'b'], recordTypes: ['dataset'] });
    const twoTags = listingDriver({ tags: ['a', 'b'], recordTypes: [] });
    const ownersTags = listingDriver({ ownerId: owner, tags: ['a'], recordTypes: [] });
    const twoTypes = listingDriver({ tags: ['a'], recordTypes: ['dataset', 'image'] });
    const tag = listingDriver({ tags: ['a'], recordTypes: [] });
    if (!typedTag || !typedTags || !twoTags || !ownersTags || !twoTypes || !tag) throw new Error('no driver');
    expect(walkCapOf(tag, 101, 5_000)).toBe(2_020);
    expect(walkCapOf(typedTag, 101, 5_000)).toBe(40_400);
    // The other tags hashed on the entries (migration 0049).
    expect(walkCapOf(typedTags, 101, 5_000)).toBe(40_400);
    expect(walkCapOf(twoTags, 101, 5_000)).toBe(40_400);
    // An owner's entries hold no tags: the tag's postings are joined to them.
    expect(walkCapOf(ownersTags, 101, 5_000)).toBe(8_080);
    expect(partWalk(typedTag, 'starred', owner).primary).toEqual({ kind: 'stars', userId: owner, tags: ['a'], recordType: 'dataset' });
    expect(partWalk(twoTypes, 'starred', owner).primary).toEqual({ kind: 'stars', userId: owner, tags: ['a'] });
  });

  it('goes on at the yield a walk had, a quarter more, within its bound; not after a walk that met nothing', () => {
    expect(nextWalk(202, 0, 101, 2_000)).toBeUndefined();
    // 20 of 202: 81 more need about 818 entries.
    expect(nextWalk(202, 20, 81, 2_000)).toBe(Math.ceil(1.25 * ((81 * 202) / 20)) + 10);
    expect(nextWalk(202, 5, 96, 2_000)).toBeUndefined();
    // Never past the bound, when the yield just fits in it.
    expect(nextWalk(1_000, 1_000, 1_900, 2_000)).toBe(2_000);
  });

  it('sizes the window after a walk from its yield over the order it covered; none after a walk of the stars', () => {
    const q = listingDriver({ tags: [], recordTypes: [], q: 'frost' });
    const tag = listingDriver({ tags: ['a'], recordTypes: [] });
    if (!q || !tag) throw new Error('no driver');
    expect(windowAfterWalk(q, 1_010, 10, 91)).toBe(Math.ceil((2 * 91 * 1_010) / 10));
    expect(windowAfterWalk(orderWalk, 202, 0, 101)).toBe(2 * 101 * 202);
    // A walk of a tag's postings: its entries are not the order's, the span it covered is.
    expect(windowAfterWalk(tag, 2_020, 10, 91, 40_000)).toBe(Math.ceil((2 * 91 * 40_000) / 10));
    expect(windowAfterWalk(tag, 2_020, 10, 91)).toBeUndefined();
    expect(windowAfterWalk(partWalk(q, 'starred', owner), 1_010, 10, 91, 40_000)).toBeUndefined();
  });

  it('walks a range fifty entries a row first, and gathers its matches by value when its yield would have the next walk read more than a gather may', () => {
    const range: OrderDriver = { primary: { kind: 'metadata_range', path: ['size'], op: 'gt', value: 980 }, probedTags: [] };
    const tag = listingDriver({ tags: ['a'], recordTypes: [] });
    if (!tag) throw new Error('no driver');
    expect(walkSizes(range, 101, 5_000)).toEqual({ first: 5_050, most: 101_000 });
    // 1 % in range: 50 of the first 5,050 entries, 51 rows more need about 5,200 entries: walked.
    const common = nextWalk(5_050, 50, 51, 101_000);
    expect(common).toBe(6_449);
    expect(gathersByValue(range, common)).toBe(false);
    // 0.2 % (the starred part of a caller who starred a tenth of a range holding 2 %): 10 of 5,050, about 46,000 more: gathered.
    const rare = nextWalk(5_050, 10, 91, 101_000);
    expect(rare).toBeGreaterThan(rangeGatherMost);
    expect(gathersByValue(range, rare)).toBe(true);
    // None met, or more than the walk's cap: gathered.
    expect(gathersByValue(range, undefined)).toBe(true);
    // Never another driver.
    expect(gathersByValue(tag, undefined)).toBe(false);
  });
});
