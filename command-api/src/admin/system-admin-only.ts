import { users } from '@cairn/domain';
import { httpErrors, type EventStore, type RequestContext } from '@cairn/platform';

/**
 * Interface 5: the admin user endpoints are for system administrators only. Checked
 * before anything is looked up, so that others learn nothing about which ids exist.
 */
export function requireSystemAdmin(context: RequestContext): void {
  if (!context.caller?.isSystemAdmin) throw httpErrors.forbidden('Only a system administrator may manage users.');
}

/** The registration of a user, from the user's own stream: null when there is no such user. */
export async function findRegistration(eventStore: EventStore, userId: string): Promise<{ isSystemAdmin: boolean } | null> {
  const stream = await eventStore.readStream(users.userStream(userId));
  const registered = stream.events.find((e) => e.type === 'UserRegistered');
  if (!registered) return null;
  return { isSystemAdmin: (registered.data as users.UserRegistered['data']).isSystemAdmin };
}
