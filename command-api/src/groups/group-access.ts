import type { groups } from '@cairn/domain';
import type { Caller } from '@cairn/platform';
import { findGroup, findOrganizationRole, type ReadDb } from '@cairn/projections';

/**
 * The facts a group command needs about its target, read from the read models (the
 * decider stays pure): the caller's role in the group's organization and whether the
 * group is a members group. An unknown group yields no role, which the decider answers
 * with 404 like a hidden one.
 */
export async function readGroupAccess(db: ReadDb, groupId: string, caller: Caller | null): Promise<{ access: groups.GroupAccess; organizationId: string | null }> {
  const row = await findGroup(db, groupId);
  if (!row) return { access: { callerRole: null, managed: false }, organizationId: null };
  const callerRole = caller ? await findOrganizationRole(db, row.organization_id, caller.userId) : null;
  return { access: { callerRole, managed: row.type === 'members' }, organizationId: row.organization_id };
}
