import { randomUUID } from 'node:crypto';
import type { EventStore } from '@cairn/platform';

/** Sign-ins are part of the audit log; the identity read model keeps `last_login` from them. */
export async function recordSignIn(eventStore: EventStore, userId: string, method: 'password' | 'upstream'): Promise<void> {
  const id = randomUUID();
  await eventStore.appendToStream(
    `sign_in-${userId}`,
    [
      {
        id,
        type: 'UserSignedIn',
        schemaVersion: 1,
        data: { userId, method },
        metadata: { actorId: userId, requestId: null, correlationId: id, causationId: null, occurredAt: new Date().toISOString() },
      },
    ],
    { expectedVersion: 'any' },
  );
}
