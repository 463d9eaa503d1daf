import { timeOrderedId } from '../ids/time-ordered-id.ts';
import { collections, currentVersionOf, DomainError, eventCatalog, systemAccess, users, type CommandContext, type UserId } from '@cairn/domain';
import type { EventStore, GlobalPosition } from '../event-store/event-store.ts';
import { grantDefaultAllocation, type DefaultAllocationGrant } from './default-allocation.ts';
import { executeCommand, type CommandMetadata } from './execute-command.ts';
import { userRootCollectionId } from './user-root.ts';

export type NewUser = { readonly id: UserId; readonly email: string; readonly name: string; readonly isSystemAdmin: boolean };

/**
 * Registration, wherever it starts (the command line, an upstream identity provider):
 * the address is claimed first on a stream of its own, so two users never share one; then
 * the user is registered; then an administrator is enrolled in the `system_access` history
 * that the last-administrator guard decides on (appended without an expected version:
 * enrollment commutes with every decision there); then the user's root collection
 * (docs/collections.md); last, the default allocation the configuration grants new users,
 * when `allocation` is given (docs/storage.md).
 */
export async function registerUser(
  eventStore: EventStore,
  user: NewUser,
  context: CommandContext,
  metadata: CommandMetadata,
  options: { readonly allocation?: DefaultAllocationGrant | null } = {},
): Promise<GlobalPosition> {
  await executeCommand(eventStore, users.userEmailDecider, users.userEmailStream(user.email), { type: 'ReserveUserEmail', email: user.email, userId: user.id }, context, metadata);
  const registered = await executeCommand(eventStore, users.userDecider, users.userStream(user.id), { type: 'RegisterUser', ...user }, context, metadata);
  const root = await createUserRoot(eventStore, user.id, context, metadata);
  const granted = options.allocation ? await grantDefaultAllocation(eventStore, user.id, options.allocation, context, metadata) : null;
  // Only administrators are enrolled: a plain user is what the guard assumes of anyone
  // absent, and enrolling everyone would make every sign-up contend with admin changes.
  if (!user.isSystemAdmin) return granted ?? root ?? registered.position ?? (await eventStore.headPosition());
  const events = systemAccess.enrollUserAccess({ type: 'EnrollUserAccess', userId: user.id, isSystemAdmin: true }, context);
  const appended = await eventStore.appendToStream(
    systemAccess.systemAccessStream,
    events.map((e) => ({
      id: timeOrderedId(),
      type: e.type,
      schemaVersion: currentVersionOf(eventCatalog, e.type),
      data: e.data,
      metadata: { actorId: context.actor.userId, requestId: metadata.requestId, correlationId: metadata.correlationId, causationId: metadata.causationId, occurredAt: context.now },
    })),
    { expectedVersion: 'any' },
  );
  return appended.position;
}

/** The user's root collection; one made meanwhile (by a first need) is as good. */
async function createUserRoot(eventStore: EventStore, userId: string, context: CommandContext, metadata: CommandMetadata): Promise<GlobalPosition | null> {
  const id = userRootCollectionId(userId) as collections.CollectionId;
  try {
    const outcome = await executeCommand(eventStore, collections.collectionDecider, collections.collectionStream(id), { type: 'CreateUserRootCollection', id, userId, title: 'Home' }, context, metadata, {
      newStream: true,
    });
    return outcome.position;
  } catch (error) {
    if (error instanceof DomainError && (error.code === 'already_exists' || error.code === 'concurrent_modification')) return null;
    throw error;
  }
}
