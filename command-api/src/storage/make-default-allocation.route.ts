import { storage } from '@cairn/domain';
import { makeDefaultAllocation } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { findAllocationRow, presentAllocation } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { openAllocation } from './allocation-access.ts';

/** Interface 4.2: the owner's stream holds its one default; the previous one stops being it. */
export const makeDefaultAllocationRoute = (deps: CommandDeps) =>
  implement(makeDefaultAllocation, async ({ params, context }) => {
    const id = params['id'] ?? '';
    const { row, authority } = await openAllocation(deps, id, context);
    const owner = { ownerType: row.owner_type as storage.AllocationOwnerType, ownerId: row.owner_id };
    return runCommand(
      deps,
      context,
      { decider: storage.allocationOwnerDecider, stream: storage.allocationOwnerStream(owner), command: { type: 'ChooseDefaultAllocation', allocationId: id, authority, ...owner } },
      { status: 200, read: () => findAllocationRow(deps.db, id), present: presentAllocation, notFound: 'Allocation not found.' },
    );
  });
