import type { OrganizationId, UserId } from '../shared/ids.ts';
import type { OrganizationRole } from './events.ts';

export type CreateOrganization = {
  readonly type: 'CreateOrganization';
  readonly id: OrganizationId;
  readonly name: string;
  readonly country: string | null;
};

export type AddOrganizationMember = {
  readonly type: 'AddOrganizationMember';
  readonly organizationId: OrganizationId;
  readonly userId: UserId;
  readonly role: OrganizationRole;
};

export type OrganizationCommand = CreateOrganization | AddOrganizationMember;
