import type { OrganizationId } from '../shared/ids.ts';
import type { CountrySetChanges, CountrySetId, CountrySetKind } from './events.ts';

/** The caller's role in the set's organization, read by the route from the identity read model. */
export type CountrySetAuthority = { readonly organizationRole: string | null };

/** Every country-set command names its set and carries the caller's authority. */
type CountrySetCommandOf<T extends string, Fields = unknown> = { readonly type: T; readonly id: CountrySetId; readonly authority: CountrySetAuthority } & Fields;

export type CreateCountrySet = CountrySetCommandOf<
  'CreateCountrySet',
  { readonly organizationId: OrganizationId; readonly name: string; readonly kind: CountrySetKind; readonly countries: readonly string[] }
>;

export type ChangeCountrySet = CountrySetCommandOf<'ChangeCountrySet', { readonly changes: CountrySetChanges }>;

/** `referencingProjects`: how many projects reference the set, from the projects read model. */
export type DeleteCountrySet = CountrySetCommandOf<'DeleteCountrySet', { readonly referencingProjects: number }>;

export type CountrySetCommand = CreateCountrySet | ChangeCountrySet | DeleteCountrySet;
