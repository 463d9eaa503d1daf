import type { assets } from '@cairn/domain';
import { httpErrors } from '@cairn/platform';
import { unknownSubjects, type ReadDb } from '@cairn/projections';

type WriteShape = { readonly flags: number; readonly subject_type: assets.SubjectType; readonly subject_id?: string | null | undefined };

/** Interface 2.5 write shape to the domain's entries; a subject that does not exist is 400 (docs/assets.md). */
export async function knownEntries(db: ReadDb, permissions: readonly WriteShape[]): Promise<assets.PermissionEntry[]> {
  const entries = permissions.map((p) => ({ subjectType: p.subject_type, subjectId: p.subject_id?.toLowerCase() ?? null, flags: p.flags }));
  const unknown = await unknownSubjects(
    db,
    entries.filter((e) => e.subjectType === 'public' || e.subjectId !== null),
  );
  if (unknown.length > 0) throw httpErrors.validation({ permissions: unknown.map((s) => `Unknown subject: ${s}.`) });
  return entries;
}
