import type { assets } from '@cairn/domain';
import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import type { AssetViewer } from './assets.read.ts';
import { myFlags, principalList, principalsText, viewerCte } from './asset-json.ts';
import { subjectSeen, type SubjectViewer } from './subject-visibility.ts';

/**
 * Interface 2.5, read shape: the subject resolved to its name and e-mail (empty where it has
 * none, or where the viewer may not see them: docs/assets.md "Disclosure").
 */
export type PermissionEntryView = {
  readonly subject: { readonly id: string | null; readonly subject_type: string; readonly name: string; readonly email: string };
  readonly flags: number;
};

type EntryRow = { owner_id: string; subject_type: string; subject_key: string; flags: number; name: string | null; email: string | null };

export type PermissionTable = { readonly table: 'asset_permissions' | 'collection_permissions'; readonly key: 'asset_id' | 'collection_id' };
export const assetEntries: PermissionTable = { table: 'asset_permissions', key: 'asset_id' };
export const collectionEntries: PermissionTable = { table: 'collection_permissions', key: 'collection_id' };

/**
 * The entries of these assets (or collections: `where` says which), each one's ordered by
 * subject type, then id. A subject's name is answered only where the viewer may see the
 * subject (subjectSeen), a user's e-mail only to system administrators and that user
 * (DECISIONS.md 2); a hidden group, project or organization reads like a deleted one.
 */
export async function entriesOf(db: ReadDb, where: PermissionTable, ids: readonly string[], viewer: SubjectViewer): Promise<Map<string, PermissionEntryView[]>> {
  const subjectId = sql`case when ap.subject_type = 'public' then null else ap.subject_key::uuid end`;
  const { rows } = await sql<EntryRow>`
    select ap.${sql.ref(where.key)} as owner_id, ap.subject_type, ap.subject_key, ap.flags,
      case when ap.subject_type = 'public' then 'Everyone'
        when ${subjectSeen(sql`ap.subject_type`, subjectId, viewer)} then coalesce(
          (select x.name from users x where ap.subject_type = 'user' and x.id = ${subjectId}),
          (select x.name from groups x where ap.subject_type = 'group' and x.id = ${subjectId}),
          (select x.name from organizations x where ap.subject_type = 'organization' and x.id = ${subjectId}),
          (select x.name from projects x where ap.subject_type = 'project' and x.id = ${subjectId})) end as name,
      case when ap.subject_type = 'user' and (${viewer.isSystemAdmin}::boolean or ${subjectId} = ${viewer.userId}::uuid)
        then (select x.email from users x where x.id = ${subjectId}) end as email
    from ${sql.table(where.table)} ap
    where ap.${sql.ref(where.key)} = any(${[...ids]}::uuid[])
    order by ap.${sql.ref(where.key)}, ap.subject_type, ap.subject_key`.execute(db);
  const byOwner = new Map<string, PermissionEntryView[]>(ids.map((id) => [id, []]));
  for (const row of rows) {
    byOwner.get(row.owner_id)?.push({
      subject: { id: row.subject_type === 'public' ? null : row.subject_key, subject_type: row.subject_type, name: row.name ?? '', email: row.email ?? '' },
      flags: row.flags,
    });
  }
  return byOwner;
}

/** The entries of these assets (interface 2.5, read shape), as the viewer may see them. */
export async function permissionEntries(db: ReadDb, assetIds: readonly string[], viewer: SubjectViewer): Promise<Map<string, PermissionEntryView[]>> {
  return entriesOf(db, assetEntries, assetIds, viewer);
}

/**
 * The positions (in `entries`) of the subjects a write may not name: those that do not
 * exist and those the viewer may not see (subjectSeen), alike (DECISIONS.md 1 and 2). A
 * subject already named by the entries of every target is let through, seen or not: the
 * viewer reads those entries already, and a manager must be able to send back the list
 * they read, with a hidden group's entry kept or changed. An entry naming a subject
 * without an id is left to the domain (400).
 */
export async function unseenSubjects(
  db: ReadDb,
  entries: readonly assets.PermissionEntry[],
  viewer: SubjectViewer,
  targets: { readonly where: PermissionTable; readonly ids: readonly string[] },
): Promise<number[]> {
  const named = entries.map((e, n) => ({ ...e, n })).filter((e) => e.subjectType !== 'public' && e.subjectId !== null);
  if (named.length === 0) return [];
  const { table, key } = targets.where;
  const { rows } = await sql<{ n: number }>`
    select s.n from unnest(${named.map((e) => e.n)}::int[], ${named.map((e) => e.subjectType)}::text[], ${named.map((e) => e.subjectId)}::uuid[]) as s(n, type, id)
    where not ${subjectSeen(sql`s.type`, sql`s.id`, viewer)}
      and (select count(distinct ap.${sql.ref(key)}) from ${sql.table(table)} ap
        where ap.${sql.ref(key)} = any(${[...targets.ids]}::uuid[]) and ap.subject_type = s.type and ap.subject_key = s.id::text) < ${Math.max(targets.ids.length, 1)}
    order by s.n`.execute(db);
  return rows.map((r) => r.n);
}

/** The caller's flags on each of these assets and who owns them; an asset that does not exist is absent. */
export async function assetsStanding(
  db: ReadDb,
  assetIds: readonly string[],
  viewer: AssetViewer,
): Promise<{ principals: string[]; assets: Map<string, { flags: number; inheritedFlags: number; ownerType: string; ownerId: string }> }> {
  const { rows } = await sql<{ principals: string; id: string | null; flags: number; inherited: number; owner_type: string; owner_id: string }>`
    with ${viewerCte(viewer.userId)}
    select ${principalsText(sql`me.p`)} as principals, a.id, a.owner_type, a.owner_id, ${myFlags(sql`${viewer.isSystemAdmin}::boolean`)} as flags,
      case when cardinality(a.collection_ids) > 0 then cairn_collection_flags(a.collection_ids, me.p) else 0 end as inherited
    from me left join assets a on a.id = any(${[...assetIds]}::uuid[])`.execute(db);
  const found = new Map<string, { flags: number; inheritedFlags: number; ownerType: string; ownerId: string }>();
  for (const row of rows) if (row.id !== null) found.set(row.id, { flags: row.flags, inheritedFlags: row.inherited, ownerType: row.owner_type, ownerId: row.owner_id });
  return { principals: principalList(rows[0]?.principals), assets: found };
}

/** The entries every one of the lists has (same subject), each with the flags all of them share. */
export function intersectEntries(lists: readonly (readonly PermissionEntryView[])[]): PermissionEntryView[] {
  const [first, ...rest] = lists;
  if (!first) return [];
  const keyOf = (e: PermissionEntryView) => `${e.subject.subject_type}:${e.subject.id ?? ''}`;
  const result: PermissionEntryView[] = [];
  for (const entry of first) {
    let flags = entry.flags;
    for (const list of rest) flags &= list.find((e) => keyOf(e) === keyOf(entry))?.flags ?? 0;
    if (flags !== 0) result.push({ subject: entry.subject, flags });
  }
  return result;
}
