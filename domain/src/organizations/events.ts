import type { DomainEvent } from '../shared/events.ts';
import type { OrganizationId, UserId } from '../shared/ids.ts';

export type OrganizationRole = 'admin' | 'member';

export const organizationRoles = ['admin', 'member'] as const satisfies readonly OrganizationRole[];

export type OrganizationCreated = DomainEvent<'OrganizationCreated', { readonly id: OrganizationId; readonly name: string; readonly country: string | null }>;

/** Other read models (groups) follow the name: this shape is shared, never changed. */
export type OrganizationRenamed = DomainEvent<'OrganizationRenamed', { readonly id: OrganizationId; readonly name: string }>;

export type OrganizationCountryChanged = DomainEvent<'OrganizationCountryChanged', { readonly id: OrganizationId; readonly country: string | null }>;

export type OrganizationMemberAdded = DomainEvent<'OrganizationMemberAdded', { readonly organizationId: OrganizationId; readonly userId: UserId; readonly role: OrganizationRole }>;

export type OrganizationMemberRoleChanged = DomainEvent<'OrganizationMemberRoleChanged', { readonly organizationId: OrganizationId; readonly userId: UserId; readonly role: OrganizationRole }>;

export type OrganizationMemberRemoved = DomainEvent<'OrganizationMemberRemoved', { readonly organizationId: OrganizationId; readonly userId: UserId }>;

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
