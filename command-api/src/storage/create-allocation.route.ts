import { storage } from '@cairn/domain';
import { createAllocation } from '@cairn/contract';
import { httpErrors, implement, newId } from '@cairn/platform';
import { allocationOwnerStanding, findAllocationRow, findRepository, presentAllocation } from '@cairn/projections';
import { callerOf } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

const allocationDecider = {
  initialState: null,
  evolve: () => null,
  decide: storage.decideAllocation,
};

/** Interface 4.2: 201 with the allocation; the owner and the repository must exist. */
export const createAllocationRoute = (deps: CommandDeps) =>
  implement(createAllocation, async ({ body, context }) => {
    const caller = callerOf(context);
    const owner = { ownerType: body.owner_type, ownerId: body.owner_id.toLowerCase() };
    const repositoryId = body.repository_id.toLowerCase();
    const standing = await allocationOwnerStanding(deps.db, owner, caller);
    // Who may not grant to this owner learns nothing of whether it exists (DECISIONS.md 1).
    if (!standing.manages) throw httpErrors.forbidden('Only a system administrator or an admin of the organization that holds the owner may grant it an allocation.');
    // Unknown ids in the body are 404 naming the field (DECISIONS.md 1, docs/http.md).
    if (!standing.exists) throw httpErrors.unknownReference('owner_id', `The ${owner.ownerType} was not found.`);
    if (!(await findRepository(deps.db, repositoryId))) throw httpErrors.unknownReference('repository_id', 'The repository was not found.');
    const id = newId(context);
    return runCommand(
      deps,
      context,
      {
        decider: allocationDecider,
        stream: storage.allocationStream(id),
        newStream: true,
        command: { type: 'CreateAllocation', id, repositoryId, limitBytes: body.limit_bytes, authority: { manages: standing.manages, choosesDefault: standing.manages }, ...owner },
      },
      { status: 201, read: () => findAllocationRow(deps.db, id), present: presentAllocation, headers: { Location: `/api/allocations/${id}/` } },
    );
  });
