import { groups } from '@cairn/domain';
import { updateGroup } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { findGroup, presentGroup } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { readGroupAccess } from './group-access.ts';

export const updateGroupRoute = (deps: CommandDeps) =>
  implement(updateGroup, async ({ params, body, context }) => {
    const id = (params['id'] ?? '') as groups.GroupId;
    const { access } = await readGroupAccess(deps.db, id, context.caller);
    const outcome = await executeCommand(
      deps.eventStore,
      groups.groupDecider,
      groups.groupStream(id),
      {
        type: 'ChangeGroup',
        id,
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        access,
      },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const row = await findGroup(deps.db, id);
    if (!row) throw httpErrors.notFound();
    return { status: 200, body: presentGroup(row), position: outcome.position };
  });
