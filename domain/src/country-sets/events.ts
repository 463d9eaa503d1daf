import type { DomainEvent } from '../shared/events.ts';
import type { Brand, OrganizationId } from '../shared/ids.ts';

export type CountrySetId = Brand<string, 'CountrySetId'>;

/** A named list of countries that an organization's projects reference (docs/projects.md). */
export const countrySetKinds = ['allowed', 'denied'] as const;
export type CountrySetKind = (typeof countrySetKinds)[number];

export type CountrySetCreated = DomainEvent<
  'CountrySetCreated',
  {
    readonly id: CountrySetId;
    readonly organizationId: OrganizationId;
    readonly name: string;
    readonly kind: CountrySetKind;
    readonly countries: readonly string[];
  }
>;

export type CountrySetChanges = { readonly name?: string; readonly countries?: readonly string[] };

export type CountrySetUpdated = DomainEvent<'CountrySetUpdated', { readonly id: CountrySetId; readonly changes: CountrySetChanges }>;

export type CountrySetDeleted = DomainEvent<'CountrySetDeleted', { readonly id: CountrySetId }>;

export type CountrySetEvent = CountrySetCreated | CountrySetUpdated | CountrySetDeleted;

export const countrySetEventTypes = ['CountrySetCreated', 'CountrySetUpdated', 'CountrySetDeleted'] as const satisfies readonly CountrySetEvent['type'][];
