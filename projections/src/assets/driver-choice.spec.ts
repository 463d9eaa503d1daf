import { describe, expect, it } from 'vitest';
import { expectedShare, listingDriver } from './driver-choice.ts';

const tagShares = new Map([
  ['sediment', 0.16],
  ['plankton', 0.07],
]);
const typeShares = new Map([
  ['dataset', 0.4],
  ['notebook', 0.05],
  ['image', 0.7],
]);

const driverOf = (filter: { tags?: string[]; recordTypes?: string[]; q?: string }) => {
  const driver = listingDriver({ tags: filter.tags ?? [], recordTypes: filter.recordTypes ?? [], q: filter.q });
  if (!driver) throw new Error('no driver');
  return driver;
};

describe('the share of assets a driver expects to meet, from the statistics', () => {
  it('multiplies the tags\' shares, and the record types\' (their sum, at most 1)', () => {
    expect(expectedShare(driverOf({ tags: ['sediment', 'plankton'] }), tagShares, typeShares)).toBeCloseTo(0.0112);
    expect(expectedShare(driverOf({ recordTypes: ['notebook'] }), tagShares, typeShares)).toBeCloseTo(0.05);
    expect(expectedShare(driverOf({ tags: ['sediment'], recordTypes: ['notebook', 'dataset'] }), tagShares, typeShares)).toBeCloseTo(0.16 * 0.45);
    expect(expectedShare(driverOf({ tags: ['sediment'], recordTypes: ['dataset', 'image'] }), tagShares, typeShares)).toBeCloseTo(0.16);
  });

  it('knows none when a value is not among the common ones, the statistics are missing, or the driver is no tag or record type', () => {
    expect(expectedShare(driverOf({ tags: ['sediment', 'rare'] }), tagShares, typeShares)).toBeUndefined();
    expect(expectedShare(driverOf({ tags: ['sediment'], recordTypes: ['software'] }), tagShares, typeShares)).toBeUndefined();
    expect(expectedShare(driverOf({ tags: ['sediment'] }), null, typeShares)).toBeUndefined();
    expect(expectedShare(driverOf({ recordTypes: ['notebook'] }), tagShares, null)).toBeUndefined();
    expect(expectedShare(driverOf({ q: 'frost' }), tagShares, typeShares)).toBeUndefined();
  });
});
