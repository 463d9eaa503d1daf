import { groups } from '@cairn/domain';
import { deleteGroup } from '@cairn/contract';
import { implement } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { readGroupAccess } from './group-access.ts';

export const deleteGroupRoute = (deps: CommandDeps) =>
  implement(deleteGroup, async ({ params, context }) => {
    const id = (params['id'] ?? '') as groups.GroupId;
    const { access } = await readGroupAccess(deps.db, id, context.caller);
    return runCommand(deps, context, { decider: groups.groupDecider, stream: groups.groupStream(id), command: { type: 'DeleteGroup', id, access } }, { status: 204 });
  });
