import type { assets } from '@cairn/domain';
import { httpErrors, type Caller } from '@cairn/platform';
import { unseenSubjects, type PermissionTable, type ReadDb } from '@cairn/projections';

type WriteShape = { readonly flags: number; readonly subject_type: assets.SubjectType; readonly subject_id?: string | null | undefined };

/**
 * Interface 2.5 write shape to the domain's entries. A subject that does not exist, and one
 * the caller may not see, are the same 404 (DECISIONS.md 1 and 2): the body names the
 * entry's position, never anything about the subject (docs/assets.md "Disclosure").
 */
export async function knownEntries(
  db: ReadDb,
  permissions: readonly WriteShape[],
  caller: Caller,
  targets: { readonly where: PermissionTable; readonly ids: readonly string[] },
): Promise<assets.PermissionEntry[]> {
  const entries = permissions.map((p) => ({ subjectType: p.subject_type, subjectId: p.subject_id?.toLowerCase() ?? null, flags: p.flags }));
  const unseen = await unseenSubjects(db, entries, caller, targets);
  if (unseen.length > 0) {
    throw httpErrors.unknownReference(unseen.map((n) => `permissions.${n}.subject_id`), 'A subject of the permissions was not found.');
  }
  return entries;
}
