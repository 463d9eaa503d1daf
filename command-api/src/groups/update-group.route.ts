import { groups } from '@cairn/domain';
import { updateGroup } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { findGroup, presentGroup } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { readGroupAccess } from './group-access.ts';

export const updateGroupRoute = (deps: CommandDeps) =>
  implement(updateGroup, async ({ params, body, context }) => {
    const id = (params['id'] ?? '') as groups.GroupId;
    const { access } = await readGroupAccess(deps.db, id, context.caller);
    const changes = { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.description !== undefined ? { description: body.description } : {}) };
    return runCommand(
      deps,
      context,
      { decider: groups.groupDecider, stream: groups.groupStream(id), command: { type: 'ChangeGroup', id, ...changes, access } },
      { status: 200, read: () => findGroup(deps.db, id), present: presentGroup },
    );
  });
