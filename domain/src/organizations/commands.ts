import type { OrganizationId, UserId } from '../shared/ids.ts';
import type { OrganizationRole } from './events.ts';

export type CreateOrganization = {
  readonly type: 'CreateOrganization';
  readonly id: OrganizationId;
  readonly name: string;
  readonly country: string | null;
};

/** PATCH of an organization: absent fields stay; `country: null` clears it. */
export type ChangeOrganization = {
  readonly type: 'ChangeOrganization';
  readonly id: OrganizationId;
  readonly name?: string | undefined;
  readonly country?: string | null | undefined;
};

export type AddOrganizationMember = {
  readonly type: 'AddOrganizationMember';
  readonly organizationId: OrganizationId;
  readonly userId: UserId;
  readonly role: OrganizationRole;
};

/** Without a role nothing changes, but the membership must still exist. */
export type ChangeOrganizationMemberRole = {
  readonly type: 'ChangeOrganizationMemberRole';
  readonly organizationId: OrganizationId;
  readonly userId: UserId;
  readonly role?: OrganizationRole | undefined;
};

export type RemoveOrganizationMember = {
  readonly type: 'RemoveOrganizationMember';
  readonly organizationId: OrganizationId;
  readonly userId: UserId;
};

export type OrganizationCommand = CreateOrganization | ChangeOrganization | AddOrganizationMember | ChangeOrganizationMemberRole | RemoveOrganizationMember;
