import { describe, expect, it } from 'vitest';
import { givenFor } from '../shared/decider-spec.ts';
import type { FundingAgencyId } from '../shared/ids.ts';
import { fundingAgencyDecider } from './decide.ts';
import type { FundingAgencyEvent } from './events.ts';

const id = '3f1c2d9e-1111-4000-8000-000000000001' as FundingAgencyId;
const admin = { actor: { userId: 'a', isSystemAdmin: true }, now: '2026-01-01T00:00:00.000Z' };
const member = { actor: { userId: 'm', isSystemAdmin: false }, now: '2026-01-01T00:00:00.000Z' };
const fields = { name: 'NSF', abbreviation: 'NSF', url: 'https://nsf.gov', catalogId: '' };
const created: FundingAgencyEvent = { type: 'FundingAgencyCreated', data: { id, ...fields } };

const given = givenFor(fundingAgencyDecider, admin);

describe('funding agency decider', () => {
  it('creates an agency', () => {
    expect(given([]).when({ type: 'CreateFundingAgency', id, fields })).toEqual({ events: [created], code: null });
  });

  it('refuses a second creation with the same id', () => {
    expect(given([created]).when({ type: 'CreateFundingAgency', id, fields }).code).toBe('already_exists');
  });

  it('records only the fields that change', () => {
    const result = given([created]).when({ type: 'ChangeFundingAgency', id, changes: { name: 'NSF', url: 'https://www.nsf.gov' } });
    expect(result.events).toEqual([{ type: 'FundingAgencyUpdated', data: { id, changes: { url: 'https://www.nsf.gov' } } }]);
  });

  it('records nothing for a change that changes nothing', () => {
    expect(given([created]).when({ type: 'ChangeFundingAgency', id, changes: { name: 'NSF' } }).events).toEqual([]);
  });

  it('treats absent and deleted agencies as not found', () => {
    const deleted: FundingAgencyEvent = { type: 'FundingAgencyDeleted', data: { id } };
    expect(given([]).when({ type: 'ChangeFundingAgency', id, changes: { name: 'x' } }).code).toBe('not_found');
    expect(given([created, deleted]).when({ type: 'DeleteFundingAgency', id }).code).toBe('not_found');
    expect(given([created, deleted]).when({ type: 'CreateFundingAgency', id, fields }).code).toBe('already_exists');
  });

  it('lets only system administrators decide anything', () => {
    expect(given([]).when({ type: 'CreateFundingAgency', id, fields }, member).code).toBe('permission_denied');
    expect(given([created]).when({ type: 'DeleteFundingAgency', id }, member).code).toBe('permission_denied');
  });
});
