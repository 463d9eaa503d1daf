import { storage, type CommandContext } from '@cairn/domain';
import type { GlobalPosition } from '../event-store/event-store.ts';
import type { EventStore } from '../event-store/event-store.ts';
import { nameBasedId } from '../ids/name-based-id.ts';
import { executeCommand, type CommandMetadata } from './execute-command.ts';

/** What the configuration grants a new user, its repository resolved (docs/storage.md). */
export type DefaultAllocationGrant = { readonly repositoryId: string; readonly limitBytes: number };

/** The id of a user's default allocation: one per user, whoever grants it first. */
export function defaultAllocationId(userId: string): string {
  return nameBasedId(`cairn-default-allocation:${userId.toLowerCase()}`);
}

/**
 * Grants the user the configured allocation unless it was granted before (then nothing is
 * appended and the position is null). Idempotent and safe to race: two grants append to
 * the same derived stream, and the loser decides again on the winner's event.
 */
export async function grantDefaultAllocation(eventStore: EventStore, userId: string, grant: DefaultAllocationGrant, context: CommandContext, metadata: CommandMetadata): Promise<GlobalPosition | null> {
  const id = defaultAllocationId(userId);
  const command: storage.GrantDefaultAllocation = { type: 'GrantDefaultAllocation', id, userId: userId.toLowerCase(), repositoryId: grant.repositoryId, limitBytes: grant.limitBytes };
  const outcome = await executeCommand(eventStore, storage.defaultAllocationGrantDecider, storage.allocationStream(id), command, context, metadata);
  return outcome.events.length > 0 ? outcome.position : null;
}
