import type { DomainEvent } from '../shared/events.ts';
import type { UserId } from '../shared/ids.ts';

export type UserRegistered = DomainEvent<'UserRegistered', { readonly id: UserId; readonly email: string; readonly name: string; readonly isSystemAdmin: boolean }>;

/** Kept on a stream of its own per e-mail address so that two users cannot share one. */
export type UserEmailReserved = DomainEvent<'UserEmailReserved', { readonly email: string; readonly userId: UserId }>;

export type UserEvent = UserRegistered;
export type UserEmailEvent = UserEmailReserved;
