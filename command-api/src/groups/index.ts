import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { addGroupMemberRoute } from './add-group-member.route.ts';
import { createGroupRoute } from './create-group.route.ts';
import { deleteGroupRoute } from './delete-group.route.ts';
import { removeGroupMemberRoute } from './remove-group-member.route.ts';
import { updateGroupRoute } from './update-group.route.ts';

/** The writes of interface 4.6 and docs/groups.md. */
export function groupCommandRoutes(deps: CommandDeps): BoundOperation[] {
  return [createGroupRoute(deps), updateGroupRoute(deps), deleteGroupRoute(deps), addGroupMemberRoute(deps), removeGroupMemberRoute(deps)];
}
