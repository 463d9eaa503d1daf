import { DomainError, type groups } from '@cairn/domain';
import { httpErrors, type Caller } from '@cairn/platform';
import { findGroup, findOrganizationRole, type ReadDb } from '@cairn/projections';

/**
 * The facts a group command needs about its target, read from the read models (the
 * decider stays pure): the caller's role in the group's organization and, for a members
 * group, the name and description it shows. An unknown group yields no role, which the decider answers
 * with 404 like a hidden one.
 */
export async function readGroupAccess(db: ReadDb, groupId: string, caller: Caller | null): Promise<{ access: groups.GroupAccess; organizationId: string | null }> {
  const row = await findGroup(db, groupId);
  if (!row) return { access: { callerRole: null, membersGroup: null }, organizationId: null };
  const callerRole = caller ? await findOrganizationRole(db, row.organization_id, caller.userId) : null;
  const membersGroup = row.type === 'members' ? { name: row.name, description: row.description } : null;
  return { access: { callerRole, membersGroup }, organizationId: row.organization_id };
}

/**
 * The decider refuses a reference in the body it may not accept (an unknown organization,
 * or one the caller may not see; a user outside the group's organization) with its own
 * code, after the checks that must come first. HTTP answers it like every other id in a
 * body that names nothing the caller may use: 404 `not_found` naming the field
 * (DECISIONS.md 1, docs/groups.md).
 */
export function asUnknownReference(code: string, field: string, detail: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof DomainError && error.code === code) throw httpErrors.unknownReference(field, detail);
    throw error;
  };
}
