import { describe, expect, it } from 'vitest';
import { affiliationCountryOf, geoPolicyOf, type ProjectRecord } from './projects.read.ts';

const projectOrganization = 'org-project';
const membership = (organization_id: string, country: string | null) => ({ organization_id, country });

const record = (overrides: Partial<ProjectRecord> = {}): ProjectRecord => ({
  id: 'p-1',
  organization_id: projectOrganization,
  owner_id: 'u-1',
  name: 'P',
  description: '',
  root_collection_id: 'c-1',
  member_count: 1,
  geobound_enabled: true,
  geobound_basis: 'ip',
  geobound_allowed_countries: ['DE'],
  geobound_allowed_country_set: null,
  geobound_denied_country_set: null,
  geobound_block_vpn: false,
  geobound_fail_closed: true,
  created_at: new Date(0),
  updated_at: new Date(0),
  member_role: 'admin',
  organization_role: null,
  is_starred: false,
  ...overrides,
});

describe('the affiliation country', () => {
  it('is the project organization’s country for its members, even when it has none', () => {
    expect(affiliationCountryOf({ memberships: [membership('org-us', 'US'), membership(projectOrganization, 'DE')] }, projectOrganization)).toBe('DE');
    expect(affiliationCountryOf({ memberships: [membership('org-de', 'DE'), membership(projectOrganization, null)] }, projectOrganization)).toBeNull();
  });

  it('is otherwise the earliest membership with a country, or unknown', () => {
    expect(affiliationCountryOf({ memberships: [membership('org-none', null), membership('org-us', 'US'), membership('org-de', 'DE')] }, projectOrganization)).toBe('US');
    expect(affiliationCountryOf({ memberships: [membership('org-none', null)] }, projectOrganization)).toBeNull();
    expect(affiliationCountryOf({ memberships: [] }, projectOrganization)).toBeNull();
  });
});

describe('a project’s policy from the fetched sets', () => {
  const set = (id: string, kind: string, countries: string[], organization_id = projectOrganization) => ({ id, organization_id, kind, countries });

  it('joins the allowed list and set, takes the denied set, and ignores sets of other projects', () => {
    const sets = [set('allowed-1', 'allowed', ['US', 'DE']), set('denied-1', 'denied', ['FR']), set('other', 'allowed', ['JP'])];
    const policy = geoPolicyOf(record({ geobound_allowed_country_set: 'allowed-1', geobound_denied_country_set: 'denied-1' }), { sets });
    expect(policy).toMatchObject({ allowedCountries: ['DE', 'US'], deniedCountries: ['FR'], incomplete: false });
  });

  it('is incomplete when a set is missing, of the wrong kind or of another organization', () => {
    expect(geoPolicyOf(record({ geobound_allowed_country_set: 'gone' }), { sets: [] }).incomplete).toBe(true);
    expect(geoPolicyOf(record({ geobound_allowed_country_set: 'd' }), { sets: [set('d', 'denied', [])] }).incomplete).toBe(true);
    expect(geoPolicyOf(record({ geobound_denied_country_set: 'x' }), { sets: [set('x', 'denied', [], 'org-other')] }).incomplete).toBe(true);
  });
});
