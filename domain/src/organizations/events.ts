import type { OrganizationId, UserId } from '../shared/ids.ts';

export type OrganizationRole = 'admin' | 'member';

export const organizationRoles = ['admin', 'member'] as const satisfies readonly OrganizationRole[];

export type OrganizationCreated = {
  readonly type: 'OrganizationCreated';
  readonly data: { readonly id: OrganizationId; readonly name: string; readonly country: string | null };
};

/** Other read models (groups) follow the name: this shape is shared, never changed. */
export type OrganizationRenamed = {
  readonly type: 'OrganizationRenamed';
  readonly data: { readonly id: OrganizationId; readonly name: string };
};

export type OrganizationCountryChanged = {
  readonly type: 'OrganizationCountryChanged';
  readonly data: { readonly id: OrganizationId; readonly country: string | null };
};

export type OrganizationMemberAdded = {
  readonly type: 'OrganizationMemberAdded';
  readonly data: { readonly organizationId: OrganizationId; readonly userId: UserId; readonly role: OrganizationRole };
};

export type OrganizationMemberRoleChanged = {
  readonly type: 'OrganizationMemberRoleChanged';
  readonly data: { readonly organizationId: OrganizationId; readonly userId: UserId; readonly role: OrganizationRole };
};

export type OrganizationMemberRemoved = {
  readonly type: 'OrganizationMemberRemoved';
  readonly data: { readonly organizationId: OrganizationId; readonly userId: UserId };
};

export type OrganizationEvent =
  | OrganizationCreated
  | OrganizationRenamed
  | OrganizationCountryChanged
  | OrganizationMemberAdded
  | OrganizationMemberRoleChanged
  | OrganizationMemberRemoved;

export const organizationEventTypes = [
  'OrganizationCreated',
  'OrganizationRenamed',
  'OrganizationCountryChanged',
  'OrganizationMemberAdded',
  'OrganizationMemberRoleChanged',
  'OrganizationMemberRemoved',
] as const satisfies readonly OrganizationEvent['type'][];
