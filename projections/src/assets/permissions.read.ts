import type { assets } from '@cairn/domain';
import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import type { AssetViewer } from './assets.read.ts';
import { myFlags, viewerCte } from './asset-json.ts';

/** Interface 2.5, read shape: the subject resolved to its name and e-mail (empty where it has none). */
export type PermissionEntryView = {
  readonly subject: { readonly id: string | null; readonly subject_type: string; readonly name: string; readonly email: string };
  readonly flags: number;
};

type EntryRow = { owner_id: string; subject_type: string; subject_key: string; flags: number; name: string | null; email: string | null };

const asUuid = (type: string) => sql.raw(`case when ap.subject_type = '${type}' then ap.subject_key::uuid end`);

/**
 * The entries of these assets (or collections: `table` and `key` name where they are),
 * each one's ordered by subject type, then id, subjects resolved to name and e-mail.
 */
export async function entriesOf(
  db: ReadDb,
  table: 'asset_permissions' | 'collection_permissions',
  key: 'asset_id' | 'collection_id',
  ids: readonly string[],
): Promise<Map<string, PermissionEntryView[]>> {
  const { rows } = await sql<EntryRow>`
    select ap.${sql.ref(key)} as owner_id, ap.subject_type, ap.subject_key, ap.flags,
      coalesce(u.name, g.name, o.name, p.name, case when ap.subject_type = 'public' then 'Everyone' end) as name,
      u.email
    from ${sql.table(table)} ap
    left join users u on u.id = ${asUuid('user')}
    left join groups g on g.id = ${asUuid('group')}
    left join organizations o on o.id = ${asUuid('organization')}
    left join projects p on p.id = ${asUuid('project')}
    where ap.${sql.ref(key)} = any(${[...ids]}::uuid[])
    order by ap.${sql.ref(key)}, ap.subject_type, ap.subject_key`.execute(db);
  const byOwner = new Map<string, PermissionEntryView[]>(ids.map((id) => [id, []]));
  for (const row of rows) {
    byOwner.get(row.owner_id)?.push({
      subject: { id: row.subject_type === 'public' ? null : row.subject_key, subject_type: row.subject_type, name: row.name ?? '', email: row.email ?? '' },
      flags: row.flags,
    });
  }
  return byOwner;
}

/** The entries of these assets (interface 2.5, read shape). */
export async function permissionEntries(db: ReadDb, assetIds: readonly string[]): Promise<Map<string, PermissionEntryView[]>> {
  return entriesOf(db, 'asset_permissions', 'asset_id', assetIds);
}

/** The subjects of these entries that do not exist, as `type id` (DECISIONS.md 2 subjects). */
export async function unknownSubjects(db: ReadDb, entries: readonly assets.PermissionEntry[]): Promise<string[]> {
  const named = entries.filter((e) => e.subjectType !== 'public');
  if (named.length === 0) return [];
  const { rows } = await sql<{ type: string; id: string }>`
    select s.type, s.id::text as id from unnest(${named.map((e) => e.subjectType)}::text[], ${named.map((e) => e.subjectId)}::uuid[]) as s(type, id)
    where not case s.type
      when 'user' then exists (select 1 from users where users.id = s.id)
      when 'group' then exists (select 1 from groups where groups.id = s.id)
      when 'organization' then exists (select 1 from organizations where organizations.id = s.id)
      when 'project' then exists (select 1 from projects where projects.id = s.id)
      else false end`.execute(db);
  return rows.map((r) => `${r.type} ${r.id}`);
}

/** The caller's flags on each of these assets and who owns them; an asset that does not exist is absent. */
export async function assetsStanding(
  db: ReadDb,
  assetIds: readonly string[],
  viewer: AssetViewer,
): Promise<{ principals: string[]; assets: Map<string, { flags: number; inheritedFlags: number; ownerType: string; ownerId: string }> }> {
  const { rows } = await sql<{ principals: string[]; id: string | null; flags: number; inherited: number; owner_type: string; owner_id: string }>`
    with ${viewerCte(viewer.userId)}
    select me.p as principals, a.id, a.owner_type, a.owner_id, ${myFlags(sql`${viewer.isSystemAdmin}::boolean`)} as flags,
      case when cardinality(a.collection_ids) > 0 then cairn_collection_flags(a.collection_ids, me.p) else 0 end as inherited
    from me left join assets a on a.id = any(${[...assetIds]}::uuid[])`.execute(db);
  const found = new Map<string, { flags: number; inheritedFlags: number; ownerType: string; ownerId: string }>();
  for (const row of rows) if (row.id !== null) found.set(row.id, { flags: row.flags, inheritedFlags: row.inherited, ownerType: row.owner_type, ownerId: row.owner_id });
  return { principals: rows[0]?.principals ?? [], assets: found };
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
