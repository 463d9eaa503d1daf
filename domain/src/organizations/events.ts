import type { OrganizationId, UserId } from '../shared/ids.ts';

export type OrganizationRole = 'admin' | 'member';

export type OrganizationCreated = {
  readonly type: 'OrganizationCreated';
  readonly data: { readonly id: OrganizationId; readonly name: string; readonly country: string | null };
};

export type OrganizationMemberAdded = {
  readonly type: 'OrganizationMemberAdded';
  readonly data: { readonly organizationId: OrganizationId; readonly userId: UserId; readonly role: OrganizationRole };
};

export type OrganizationEvent = OrganizationCreated | OrganizationMemberAdded;
