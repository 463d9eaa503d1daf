import type { OrganizationId } from '../shared/ids.ts';
import type { CountrySetChanges, CountrySetId, CountrySetKind } from './events.ts';

/** The caller's role in the set's organization, read by the route from the identity read model. */
export type CountrySetAuthority = { readonly organizationRole: string | null };

export type CreateCountrySet = {
  readonly type: 'CreateCountrySet';
  readonly id: CountrySetId;
  readonly organizationId: OrganizationId;
  readonly name: string;
  readonly kind: CountrySetKind;
  readonly countries: readonly string[];
  readonly authority: CountrySetAuthority;
};

export type ChangeCountrySet = {
  readonly type: 'ChangeCountrySet';
  readonly id: CountrySetId;
  readonly changes: CountrySetChanges;
  readonly authority: CountrySetAuthority;
};

export type DeleteCountrySet = {
  readonly type: 'DeleteCountrySet';
  readonly id: CountrySetId;
  readonly authority: CountrySetAuthority;
  /** How many projects reference the set, from the projects read model. */
  readonly referencingProjects: number;
};

export type CountrySetCommand = CreateCountrySet | ChangeCountrySet | DeleteCountrySet;
