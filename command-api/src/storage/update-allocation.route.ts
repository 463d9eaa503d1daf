import { storage } from '@cairn/domain';
import { updateAllocation } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { findAllocationRow, presentAllocation, snapshotOf } from '@cairn/projections';
import { awaitReadModels, commandContext, type CommandDeps } from '../deps.ts';
import { openAllocation } from './allocation-access.ts';
import { decideOnSnapshot } from './snapshot-command.ts';

/** Interface 4.2: PATCH of the limit, decided on the allocation's snapshot; no limit given changes nothing. */
export const updateAllocationRoute = (deps: CommandDeps) =>
  implement(updateAllocation, async ({ params, body, context }) => {
    const id = params['id'] ?? '';
    const outcome = await decideOnSnapshot(deps, context, async () => {
      const standing = await openAllocation(deps, id, context);
      const { snapshot, version } = snapshotOf(standing.row);
      const limitBytes = body.limit_bytes ?? snapshot.limitBytes;
      const events = storage.decideAllocation({ type: 'ChangeAllocationLimit', limitBytes, authority: standing.authority }, snapshot, commandContext(context));
      return [{ streamId: storage.allocationStream(id), events, expectedVersion: version }];
    });
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const row = await findAllocationRow(deps.db, id);
    if (!row) throw new Error('the allocation vanished after its change');
    return { status: 200, body: presentAllocation(row), position: outcome.position };
  });
