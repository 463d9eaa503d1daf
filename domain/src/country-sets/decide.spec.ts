import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../shared/command-context.ts';
import { givenFor } from '../shared/decider-spec.ts';
import type { OrganizationId } from '../shared/ids.ts';
import { countrySetDecider } from './decide.ts';
import type { CountrySetEvent, CountrySetId } from './events.ts';

const id = 's1' as CountrySetId;
const organizationId = 'o1' as OrganizationId;
const now = '2026-01-01T00:00:00.000Z';
const user: CommandContext = { actor: { userId: 'u', isSystemAdmin: false }, now };
const systemAdmin: CommandContext = { actor: { userId: 'a', isSystemAdmin: true }, now };
const admin = { organizationRole: 'admin' };
const member = { organizationRole: 'member' };
const none = { organizationRole: null };
const created: CountrySetEvent = { type: 'CountrySetCreated', data: { id, organizationId, name: 'EU', kind: 'allowed', countries: ['DE', 'FR'] } };

const given = givenFor(countrySetDecider, user);

describe('country set decider', () => {
  it('creates a set with trimmed name and sorted unique countries, for organization admins', () => {
    const command = { type: 'CreateCountrySet', id, organizationId, name: ' EU ', kind: 'allowed', countries: ['FR', 'DE', 'FR'], authority: admin } as const;
    expect(given([]).when(command).events).toEqual([created]);
    expect(given([]).when({ ...command, authority: member }).code).toBe('permission_denied');
    expect(given([]).when({ ...command, authority: none }, systemAdmin).code).toBeNull();
    expect(given([]).when({ ...command, countries: ['fr'] }).code).toBe('invalid_country');
    expect(given([]).when({ ...command, kind: 'maybe' as unknown as 'allowed' }).code).toBe('invalid_kind');
    expect(given([created]).when(command).code).toBe('already_exists');
  });

  it('records only what changes', () => {
    expect(given([created]).when({ type: 'ChangeCountrySet', id, changes: { name: 'EU', countries: ['FR', 'DE'] }, authority: admin }).events).toEqual([]);
    expect(given([created]).when({ type: 'ChangeCountrySet', id, changes: { countries: ['AT'] }, authority: admin }).events).toEqual([
      { type: 'CountrySetUpdated', data: { id, changes: { countries: ['AT'] } } },
    ]);
  });

  it('hides sets from outsiders, lets members only read, and refuses to delete one in use', () => {
    expect(given([created]).when({ type: 'ChangeCountrySet', id, changes: { name: 'x' }, authority: none }).code).toBe('not_found');
    expect(given([created]).when({ type: 'ChangeCountrySet', id, changes: { name: 'x' }, authority: member }).code).toBe('permission_denied');
    expect(given([created]).when({ type: 'DeleteCountrySet', id, authority: admin, referencingProjects: 1 }).code).toBe('country_set_in_use');
    const deleted = given([created]).when({ type: 'DeleteCountrySet', id, authority: admin, referencingProjects: 0 }).events;
    expect(deleted).toEqual([{ type: 'CountrySetDeleted', data: { id } }]);
    expect(given([created, ...deleted]).when({ type: 'DeleteCountrySet', id, authority: admin, referencingProjects: 0 }).code).toBe('not_found');
  });
});
