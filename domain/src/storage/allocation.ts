import type { CommandContext } from '../shared/command-context.ts';
import { assertNever } from '../shared/decider.ts';
import type { DomainEvent } from '../shared/events.ts';
import { conflict, DomainError, forbidden, invalid, notFound } from '../shared/errors.ts';

export const allocationOwnerTypes = ['user', 'project', 'organization'] as const;
export type AllocationOwnerType = (typeof allocationOwnerTypes)[number];
export type AllocationOwner = { readonly ownerType: AllocationOwnerType; readonly ownerId: string };

/** 1 EiB: far past any real quota, well inside PostgreSQL's bigint and a JSON-safe integer. */
export const maxLimitBytes = 2 ** 50;

/**
 * An allocation's stream (`allocation-<id>`) holds its life and every charge and credit of
 * content it pays for (docs/storage.md). Charges are decided on the allocation's read-model
 * row, whose `version` is the stream's: the append's expected version proves it current.
 */
export type AllocationCreated = DomainEvent<
  'AllocationCreated',
  { readonly id: string; readonly repositoryId: string; readonly limitBytes: number } & AllocationOwner
>;
export type AllocationLimitChanged = DomainEvent<'AllocationLimitChanged', { readonly id: string; readonly limitBytes: number }>;
export type AllocationDeleted = DomainEvent<'AllocationDeleted', { readonly id: string } & AllocationOwner>;
/** Content this allocation pays for was stored (or moved onto its repository). */
export type AllocationCharged = DomainEvent<'AllocationCharged', { readonly id: string; readonly contentId: string; readonly bytes: number }>;
/** Content it paid for is gone (deleted, or moved to another repository). */
export type AllocationCredited = DomainEvent<'AllocationCredited', { readonly id: string; readonly contentId: string; readonly bytes: number }>;
/** A direct upload's declared size, held for it while it is open (docs/storage.md "Direct uploads"). */
export type AllocationReserved = DomainEvent<'AllocationReserved', { readonly id: string; readonly uploadId: string; readonly bytes: number }>;
/** The upload ended: completed (its charge is appended with this), aborted or expired. */
export type AllocationReleased = DomainEvent<'AllocationReleased', { readonly id: string; readonly uploadId: string; readonly bytes: number }>;
/** On the owner's stream (`allocation-owner-<type>-<id>`): one default per owner. */
export type DefaultAllocationChosen = DomainEvent<
  'DefaultAllocationChosen',
  { readonly allocationId: string; readonly previousAllocationId: string | null } & AllocationOwner
>;

export type AllocationEvent = AllocationCreated | AllocationLimitChanged | AllocationDeleted | AllocationCharged | AllocationCredited | AllocationReserved | AllocationReleased;
export const allocationEventTypes = ['AllocationCreated', 'AllocationLimitChanged', 'AllocationDeleted', 'AllocationCharged', 'AllocationCredited', 'AllocationReserved', 'AllocationReleased'] as const satisfies readonly AllocationEvent['type'][];

/** What a decision needs of an allocation: its read-model row, at the stream's version. */
export type AllocationSnapshot = AllocationOwner & {
  readonly id: string;
  readonly repositoryId: string;
  readonly limitBytes: number;
  readonly usedBytes: number;
  /** Held for open direct uploads: counted as used by every charge and reservation. */
  readonly reservedBytes: number;
  readonly contentCount: number;
};

export const allocationErrors = {
  notFound: () => notFound('not_found', 'Allocation not found.'),
  notAllowed: () => forbidden('permission_denied', 'Only a system administrator or an admin of the organization concerned may manage this allocation.'),
  defaultNotAllowed: () => forbidden('permission_denied', "Only a system administrator, or for a project's allocation an admin of the project or of its organization, may choose the default allocation."),
  inUse: () => conflict('allocation_in_use', 'This allocation still pays for content; delete or migrate the content first.'),
  invalidLimit: () => invalid('invalid_limit_bytes', `limit_bytes is a whole number of bytes from 0 to ${maxLimitBytes}.`),
  exceeded: (remaining: number) =>
    conflict('allocation_exceeded', `This content would exceed the allocation that pays for it (${Math.max(0, remaining)} bytes remain).`),
};

/** Who may do what: the route reads the caller's roles; the decision states the rule. */
export type AllocationAuthority = {
  /** A system administrator, or an admin of the organization that holds the owner. */
  readonly manages: boolean;
  /** May choose the owner's default (interface 4.2: a system administrator; for a project's allocation also its admins and its organization's admins). */
  readonly choosesDefault: boolean;
};

export type CreateAllocation = { readonly type: 'CreateAllocation'; readonly id: string; readonly repositoryId: string; readonly limitBytes: number; readonly authority: AllocationAuthority } & AllocationOwner;
export type ChangeAllocationLimit = { readonly type: 'ChangeAllocationLimit'; readonly limitBytes: number; readonly authority: AllocationAuthority };
export type DeleteAllocation = { readonly type: 'DeleteAllocation'; readonly authority: AllocationAuthority };
export type AllocationCommand = CreateAllocation | ChangeAllocationLimit | DeleteAllocation;

function checkLimit(limitBytes: number): number {
  if (!Number.isSafeInteger(limitBytes) || limitBytes < 0 || limitBytes > maxLimitBytes) throw allocationErrors.invalidLimit();
  return limitBytes;
}

/** Decides on the allocation's snapshot (null: none yet, or deleted). */
export function decideAllocation(command: AllocationCommand, state: AllocationSnapshot | null, _context: CommandContext): readonly AllocationEvent[] {
  // The route answers 404 first for an allocation the caller cannot see.
  if (!command.authority.manages) throw allocationErrors.notAllowed();
  switch (command.type) {
    case 'CreateAllocation': {
      const { id, repositoryId, ownerType, ownerId } = command;
      return [{ type: 'AllocationCreated', data: { id, repositoryId, ownerType, ownerId, limitBytes: checkLimit(command.limitBytes) } }];
    }
    case 'ChangeAllocationLimit': {
      if (!state) throw allocationErrors.notFound();
      // Lowering below what is used is allowed: nothing is removed, new content is refused.
      const limitBytes = checkLimit(command.limitBytes);
      return limitBytes === state.limitBytes ? [] : [{ type: 'AllocationLimitChanged', data: { id: state.id, limitBytes } }];
    }
    case 'DeleteAllocation':
      if (!state) throw allocationErrors.notFound();
      if (state.contentCount > 0 || state.usedBytes > 0 || state.reservedBytes > 0) throw allocationErrors.inUse();
      return [{ type: 'AllocationDeleted', data: { id: state.id, ownerType: state.ownerType, ownerId: state.ownerId } }];
    default:
      return assertNever(command);
  }
}

const committedBytes = (state: AllocationSnapshot) => state.usedBytes + state.reservedBytes;

/** Charges stored bytes to the allocation, refusing what would go past its limit (reservations of open uploads count as used). */
export function decideCharge(state: AllocationSnapshot | null, contentId: string, bytes: number): AllocationCharged {
  if (!state) throw allocationErrors.notFound();
  if (committedBytes(state) + bytes > state.limitBytes) throw allocationErrors.exceeded(state.limitBytes - committedBytes(state));
  return { type: 'AllocationCharged', data: { id: state.id, contentId, bytes } };
}

/** Holds a direct upload's declared size, refused as a charge of that size would be. */
export function decideReservation(state: AllocationSnapshot | null, uploadId: string, bytes: number): AllocationReserved {
  if (!state) throw allocationErrors.notFound();
  if (committedBytes(state) + bytes > state.limitBytes) throw allocationErrors.exceeded(state.limitBytes - committedBytes(state));
  return { type: 'AllocationReserved', data: { id: state.id, uploadId, bytes } };
}

export function decideRelease(state: AllocationSnapshot, uploadId: string, bytes: number): AllocationReleased {
  return { type: 'AllocationReleased', data: { id: state.id, uploadId, bytes } };
}

/**
 * A completed upload: its reservation is released and the object charged, in one append.
 * The charge is decided as if the reservation were already gone, so an upload whose size
 * matches its declaration always fits, even if the limit was lowered meanwhile: the
 * reservation was the promise.
 */
export function decideUploadCharge(state: AllocationSnapshot | null, uploadId: string, reservedBytes: number, contentId: string, bytes: number): [AllocationReleased, AllocationCharged] {
  if (!state) throw allocationErrors.notFound();
  const released = decideRelease(state, uploadId, reservedBytes);
  const without = { ...state, reservedBytes: Math.max(0, state.reservedBytes - reservedBytes) };
  const room = Math.max(state.limitBytes, committedBytes(without) + Math.min(bytes, reservedBytes));
  return [released, decideCharge({ ...without, limitBytes: room }, contentId, bytes)];
}

export function decideCredit(state: AllocationSnapshot, contentId: string, bytes: number): AllocationCredited {
  return { type: 'AllocationCredited', data: { id: state.id, contentId, bytes } };
}

export type ChooseDefaultAllocation = AllocationOwner & { readonly type: 'ChooseDefaultAllocation'; readonly allocationId: string; readonly authority: AllocationAuthority };
export type AllocationOwnerState = { readonly defaultAllocationId: string | null };

export function decideDefault(command: ChooseDefaultAllocation, state: AllocationOwnerState): readonly DefaultAllocationChosen[] {
  if (!command.authority.choosesDefault) throw allocationErrors.defaultNotAllowed();
  if (state.defaultAllocationId === command.allocationId) return [];
  const { ownerType, ownerId, allocationId } = command;
  return [{ type: 'DefaultAllocationChosen', data: { ownerType, ownerId, allocationId, previousAllocationId: state.defaultAllocationId } }];
}

export const allocationOwnerDecider = {
  initialState: { defaultAllocationId: null } as AllocationOwnerState,
  evolve: (_state: AllocationOwnerState, event: DefaultAllocationChosen): AllocationOwnerState => ({ defaultAllocationId: event.data.allocationId }),
  decide: (command: ChooseDefaultAllocation, state: AllocationOwnerState, _context: CommandContext) => decideDefault(command, state),
};

export const allocationStream = (id: string) => `allocation-${id}`;
export const allocationOwnerStream = (owner: AllocationOwner) => `allocation_owner-${owner.ownerType}-${owner.ownerId}`;

export const isAllocationExceeded = (error: unknown) => error instanceof DomainError && error.code === 'allocation_exceeded';
