import { storage } from '@cairn/domain';
import { deleteAllocation } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { snapshotOf } from '@cairn/projections';
import { awaitReadModels, commandContext, type CommandDeps } from '../deps.ts';
import { openAllocation } from './allocation-access.ts';
import { decideOnSnapshot } from './snapshot-command.ts';

/**
 * Interface 4.2: 204; 409 `allocation_in_use` while it pays for content. Decided on the
 * snapshot with its version expected, so an upload charged meanwhile makes it decide again.
 */
export const deleteAllocationRoute = (deps: CommandDeps) =>
  implement(deleteAllocation, async ({ params, context }) => {
    const id = params['id'] ?? '';
    const outcome = await decideOnSnapshot(deps, context, async () => {
      const standing = await openAllocation(deps, id, context);
      const { snapshot, version } = snapshotOf(standing.row);
      const events = storage.decideAllocation({ type: 'DeleteAllocation', authority: standing.authority }, snapshot, commandContext(context));
      return [{ streamId: storage.allocationStream(id), events, expectedVersion: version }];
    });
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 204, position: outcome.position };
  });
