import type { UserId } from '../shared/ids.ts';

/** Appended at registration, after the user's own stream. */
export type EnrollUserAccess = {
  readonly type: 'EnrollUserAccess';
  readonly userId: UserId;
  readonly isSystemAdmin: boolean;
};

/**
 * PATCH of an admin user (interface 4.1). `registeredAsSystemAdmin` is the flag of the
 * user's registration, read by the handler from the user's stream: it lets a user who
 * registered without being enrolled (an interrupted registration) be enrolled first.
 */
export type ChangeUserAccess = {
  readonly type: 'ChangeUserAccess';
  readonly userId: UserId;
  readonly registeredAsSystemAdmin: boolean;
  readonly isActive?: boolean | undefined;
  readonly isSystemAdmin?: boolean | undefined;
};

export type SystemAccessCommand = EnrollUserAccess | ChangeUserAccess;
