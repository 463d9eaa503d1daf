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

export type ProjectCreated = {
  readonly type: 'ProjectCreated';
  readonly data: {
    readonly id: ProjectId;
    readonly organizationId: OrganizationId;
    readonly ownerId: UserId;
    readonly rootCollectionId: string;
  } & ProjectDetails;
};

export type ProjectUpdated = {
  readonly type: 'ProjectUpdated';
  readonly data: { readonly id: ProjectId; readonly changes: Partial<ProjectDetails> };
};

export type ProjectDeleted = {
  readonly type: 'ProjectDeleted';
  readonly data: { readonly id: ProjectId };
};

export type ProjectMemberAdded = {
  readonly type: 'ProjectMemberAdded';
  readonly data: { readonly projectId: ProjectId; readonly userId: UserId; readonly role: ProjectRole };
};

export type ProjectMemberRoleChanged = {
  readonly type: 'ProjectMemberRoleChanged';
  readonly data: { readonly projectId: ProjectId; readonly userId: UserId; readonly role: ProjectRole };
};

export type ProjectMemberRemoved = {
  readonly type: 'ProjectMemberRemoved';
  readonly data: { readonly projectId: ProjectId; readonly userId: UserId };
};

export type ProjectStarred = {
  readonly type: 'ProjectStarred';
  readonly data: { readonly projectId: ProjectId; readonly userId: UserId };
};

export type ProjectUnstarred = {
  readonly type: 'ProjectUnstarred';
  readonly data: { readonly projectId: ProjectId; readonly userId: UserId };
};

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
