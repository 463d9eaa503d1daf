import type { CommandContext } from '../shared/command-context.ts';
import type { Decider } from '../shared/decider.ts';
import { forbidden } from '../shared/errors.ts';
import { allocationErrors, maxLimitBytes, type AllocationCreated, type AllocationEvent } from './allocation.ts';

/**
 * The allocation a new user receives from the deployment's configuration
 * (CAIRN_DEFAULT_ALLOCATION_BYTES, docs/storage.md). Its id is derived from the user's, so
 * its stream is the record that the grant was made: a user gets it once ever, whoever
 * asks first (registration, or a first upload of a user registered before), however
 * often they ask, and not again after an administrator deleted it.
 */
export type GrantDefaultAllocation = {
  readonly type: 'GrantDefaultAllocation';
  readonly id: string;
  readonly userId: string;
  readonly repositoryId: string;
  readonly limitBytes: number;
};

/** Whether the stream has any event: a grant made, whatever became of it since. */
export type DefaultAllocationGrantState = { readonly granted: boolean };

export function decideDefaultAllocationGrant(command: GrantDefaultAllocation, state: DefaultAllocationGrantState, context: CommandContext): readonly AllocationCreated[] {
  // The configuration decides, not a caller: only the service's own (operator) context grants.
  if (!context.actor.isSystemAdmin) throw forbidden('permission_denied', 'Only the service grants default allocations.');
  if (state.granted) return [];
  const { id, userId, repositoryId, limitBytes } = command;
  if (!Number.isSafeInteger(limitBytes) || limitBytes <= 0 || limitBytes > maxLimitBytes) throw allocationErrors.invalidLimit();
  return [{ type: 'AllocationCreated', data: { id, repositoryId, ownerType: 'user', ownerId: userId, limitBytes } }];
}

export const defaultAllocationGrantDecider: Decider<GrantDefaultAllocation, AllocationEvent, DefaultAllocationGrantState> = {
  initialState: { granted: false },
  evolve: () => ({ granted: true }),
  decide: decideDefaultAllocationGrant,
};
