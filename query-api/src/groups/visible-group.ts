import type { Caller } from '@cairn/platform';
import { httpErrors } from '@cairn/platform';
import { findGroup, findOrganizationRole, type GroupRow, type ReadDb } from '@cairn/projections';

/**
 * A group the caller may see: a system administrator sees every group, anyone else the
 * groups of the organizations they belong to. Hidden and unknown are the same 404
 * (DECISIONS.md 1).
 */
export async function visibleGroup(db: ReadDb, id: string, caller: Caller | null): Promise<GroupRow> {
  const row = await findGroup(db, id);
  if (!row || !caller) throw httpErrors.notFound('Group not found.');
  if (caller.isSystemAdmin) return row;
  const role = await findOrganizationRole(db, row.organization_id, caller.userId);
  if (role === null) throw httpErrors.notFound('Group not found.');
  return row;
}
