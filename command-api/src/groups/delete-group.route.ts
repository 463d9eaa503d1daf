import { groups } from '@cairn/domain';
import { deleteGroup } from '@cairn/contract';
import { executeCommand, implement } from '@cairn/platform';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { readGroupAccess } from './group-access.ts';

export const deleteGroupRoute = (deps: CommandDeps) =>
  implement(deleteGroup, async ({ params, context }) => {
    const id = (params['id'] ?? '') as groups.GroupId;
    const { access } = await readGroupAccess(deps.db, id, context.caller);
    const outcome = await executeCommand(
      deps.eventStore,
      groups.groupDecider,
      groups.groupStream(id),
      { type: 'DeleteGroup', id, access },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 204, position: outcome.position };
  });
