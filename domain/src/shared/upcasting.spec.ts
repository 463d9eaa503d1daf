import { describe, expect, it } from 'vitest';
import { eventCatalog } from '../catalog.ts';
import { createUpcaster } from './upcasting.ts';

describe('upcasting', () => {
  const upcast = createUpcaster(eventCatalog);

  it('lifts a version 1 FundingAgencyCreated to version 2', () => {
    const event = { type: 'FundingAgencyCreated', schemaVersion: 1, data: { id: 'x', name: 'N', abbreviation: 'A', homepage: 'https://n.example' } };
    expect(upcast(event)).toEqual({ type: 'FundingAgencyCreated', schemaVersion: 2, data: { id: 'x', name: 'N', abbreviation: 'A', url: 'https://n.example', catalogId: '' } });
  });

  it('leaves current versions and unknown types untouched', () => {
    const current = { type: 'FundingAgencyCreated', schemaVersion: 2, data: { id: 'x' } };
    expect(upcast(current)).toBe(current);
    const other = { type: 'SomethingElse', schemaVersion: 1, data: {} };
    expect(upcast(other)).toBe(other);
  });

  it('fails loudly when a step is missing', () => {
    const broken = createUpcaster({ currentVersions: { Thing: 3 }, upcasters: [{ type: 'Thing', fromVersion: 1, upcast: (d) => d }] });
    expect(() => broken({ type: 'Thing', schemaVersion: 1, data: {} })).toThrow(/no upcaster/);
  });
});
