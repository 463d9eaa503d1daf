import type { DomainEvent } from '../shared/events.ts';
import type { Brand, OrganizationId, UserId } from '../shared/ids.ts';

export type ProjectId = Brand<string, 'ProjectId'>;

/** Interface 2.2: `viewer` is read-only (DECISIONS.md 2 bits in access.ts). */
export const projectRoles = ['admin', 'member', 'viewer'] as const;
export type ProjectRole = (typeof projectRoles)[number];

/** Interface 2.2: IP country, affiliation country, either, both. */
export const geoboundBases = ['ip', 'affiliation', 'ip_or_affiliation', 'ip_and_affiliation'] as const;
export type GeoboundBasis = (typeof geoboundBases)[number];

/** What a PATCH may change (interface 4.5); one flat record so that changes diff field by field. */
export type ProjectDetails = {
  readonly name: string;
  readonly description: string;
  readonly geoboundEnabled: boolean;
  readonly geoboundBasis: GeoboundBasis;
  readonly geoboundAllowedCountries: readonly string[];
  readonly geoboundAllowedCountrySetId: string | null;
  readonly geoboundDeniedCountrySetId: string | null;
  readonly geoboundBlockVpn: boolean;
  readonly geoboundFailClosed: boolean;
};

/** Every project starts without a geographic restriction; fail-closed is the safe default once it is switched on. */
export const defaultGeobound = {
  geoboundEnabled: false,
  geoboundBasis: 'ip',
  geoboundAllowedCountries: [],
  geoboundAllowedCountrySetId: null,
  geoboundDeniedCountrySetId: null,
  geoboundBlockVpn: false,
  geoboundFailClosed: true,
} as const satisfies Omit<ProjectDetails, 'name' | 'description'>;

export type ProjectCreated = DomainEvent<'ProjectCreated', { readonly id: ProjectId; readonly organizationId: OrganizationId; readonly ownerId: UserId; readonly rootCollectionId: string } & ProjectDetails>;

export type ProjectUpdated = DomainEvent<'ProjectUpdated', { readonly id: ProjectId; readonly changes: Partial<ProjectDetails> }>;

export type ProjectDeleted = DomainEvent<'ProjectDeleted', { readonly id: ProjectId }>;

export type ProjectMemberAdded = DomainEvent<'ProjectMemberAdded', { readonly projectId: ProjectId; readonly userId: UserId; readonly role: ProjectRole }>;

export type ProjectMemberRoleChanged = DomainEvent<'ProjectMemberRoleChanged', { readonly projectId: ProjectId; readonly userId: UserId; readonly role: ProjectRole }>;

export type ProjectMemberRemoved = DomainEvent<'ProjectMemberRemoved', { readonly projectId: ProjectId; readonly userId: UserId }>;

export type ProjectStarred = DomainEvent<'ProjectStarred', { readonly projectId: ProjectId; readonly userId: UserId }>;

export type ProjectUnstarred = DomainEvent<'ProjectUnstarred', { readonly projectId: ProjectId; readonly userId: UserId }>;

export type ProjectEvent =
  | ProjectCreated
  | ProjectUpdated
  | ProjectDeleted
  | ProjectMemberAdded
  | ProjectMemberRoleChanged
  | ProjectMemberRemoved
  | ProjectStarred
  | ProjectUnstarred;

export const projectEventTypes = [
  'ProjectCreated',
  'ProjectUpdated',
  'ProjectDeleted',
  'ProjectMemberAdded',
  'ProjectMemberRoleChanged',
  'ProjectMemberRemoved',
  'ProjectStarred',
  'ProjectUnstarred',
] as const satisfies readonly ProjectEvent['type'][];
