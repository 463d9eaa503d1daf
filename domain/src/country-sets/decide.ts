import type { CommandContext } from '../shared/command-context.ts';
import { assertNever, type Decider } from '../shared/decider.ts';
import type { CountrySetAuthority, CountrySetCommand } from './commands.ts';
import { countrySetErrors } from './errors.ts';
import { countrySetKinds, type CountrySetChanges, type CountrySetEvent, type CountrySetId } from './events.ts';
import { evolve, initialState, type CountrySetState } from './state.ts';

const countryPattern = /^[A-Z]{2}$/;

export function decide(command: CountrySetCommand, state: CountrySetState, context: CommandContext): readonly CountrySetEvent[] {
  switch (command.type) {
    case 'CreateCountrySet': {
      requireAdmin(command.authority, context);
      if (state.status !== 'absent') throw countrySetErrors.alreadyExists();
      if (!(countrySetKinds as readonly string[]).includes(command.kind)) throw countrySetErrors.invalidKind();
      return [
        {
          type: 'CountrySetCreated',
          data: { id: command.id, organizationId: command.organizationId, name: validName(command.name), kind: command.kind, countries: validCountries(command.countries) },
        },
      ];
    }
    case 'ChangeCountrySet': {
      const current = visibleSet(state, command.authority, context);
      requireAdmin(command.authority, context);
      const changes: { name?: string; countries?: readonly string[] } = {};
      if (command.changes.name !== undefined) {
        const name = validName(command.changes.name);
        if (name !== current.name) changes.name = name;
      }
      if (command.changes.countries !== undefined) {
        const countries = validCountries(command.changes.countries);
        if (countries.join(',') !== current.countries.join(',')) changes.countries = countries;
      }
      // A PATCH that changes nothing records nothing.
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'CountrySetUpdated', data: { id: command.id, changes: changes satisfies CountrySetChanges } }];
    }
    case 'DeleteCountrySet':
      visibleSet(state, command.authority, context);
      requireAdmin(command.authority, context);
      // A project's restriction must never silently lose a list it relies on.
      if (command.referencingProjects > 0) throw countrySetErrors.inUse();
      return [{ type: 'CountrySetDeleted', data: { id: command.id } }];
    default:
      return assertNever(command);
  }
}

/** Members of the set's organization see it; anyone else gets not found (DECISIONS.md 1). */
function visibleSet(state: CountrySetState, authority: CountrySetAuthority, context: CommandContext) {
  if (state.status !== 'active') throw countrySetErrors.notFound();
  if (!context.actor.isSystemAdmin && authority.organizationRole === null) throw countrySetErrors.notFound();
  return state;
}

function requireAdmin(authority: CountrySetAuthority, context: CommandContext): void {
  if (!context.actor.isSystemAdmin && authority.organizationRole !== 'admin') throw countrySetErrors.adminOnly();
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 255) throw countrySetErrors.invalidName();
  return trimmed;
}

/** Stored as a set: sorted, each code once. */
function validCountries(countries: readonly string[]): readonly string[] {
  if (!countries.every((c) => countryPattern.test(c))) throw countrySetErrors.invalidCountry();
  return [...new Set(countries)].sort();
}

export const countrySetDecider: Decider<CountrySetCommand, CountrySetEvent, CountrySetState> = {
  initialState,
  evolve,
  decide,
};

export const countrySetStream = (id: CountrySetId | string) => `country_set-${id}`;
