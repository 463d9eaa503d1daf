import type { DomainEvent } from '../shared/events.ts';
import type { UserId } from '../shared/ids.ts';

/**
 * The facts of one stream, `system_access`, that decide who may administer the system.
 * Everything the last-administrator guard needs is in this one history, so a decision
 * appended with the version it was made on can never be undercut by a concurrent one.
 */

/** A registered user joins the history; a repeat for a known user changes nothing. */
export type UserAccessEnrolled = DomainEvent<'UserAccessEnrolled', { readonly userId: UserId; readonly isSystemAdmin: boolean }>;

export type UserDeactivated = DomainEvent<'UserDeactivated', { readonly userId: UserId }>;
export type UserReactivated = DomainEvent<'UserReactivated', { readonly userId: UserId }>;
export type SystemAdminGranted = DomainEvent<'SystemAdminGranted', { readonly userId: UserId }>;
export type SystemAdminRevoked = DomainEvent<'SystemAdminRevoked', { readonly userId: UserId }>;

export type SystemAccessEvent = UserAccessEnrolled | UserDeactivated | UserReactivated | SystemAdminGranted | SystemAdminRevoked;

export const systemAccessEventTypes = ['UserAccessEnrolled', 'UserDeactivated', 'UserReactivated', 'SystemAdminGranted', 'SystemAdminRevoked'] as const;
