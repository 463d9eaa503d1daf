import { sql, type RawBuilder } from 'kysely';

/** A timestamp as JavaScript's toISOString writes it (milliseconds, `Z`). */
export const isoTime = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The caller as a statement sees it: `me.p`, its principals (docs/assets.md), and `me.vc`,
 * the collections whose entries (their own or their ancestors') let it read the assets
 * they hold (docs/collections.md).
 */
export function viewerCte(userId: string): RawBuilder<unknown> {
  return sql`me as materialized (
    select x.p, array(select c.id from collections c where c.asset_readers && x.p) as vc
    from (select cairn_principals(${userId}::uuid) as p) x)`;
}

/** Whether the caller may read the asset `a` (READ_METADATA): its own grants, or a collection holding it. */
export function visibleToMe(isSystemAdmin: boolean): RawBuilder<unknown> {
  return isSystemAdmin ? sql`true` : sql`(a.readers && me.p or a.collection_ids && me.vc)`;
}

/** The caller's effective flags on `a` (DECISIONS.md 2), collections included. */
export function myFlags(isAdmin: RawBuilder<unknown>): RawBuilder<number> {
  return sql<number>`(cairn_effective_flags(a.owner_grants, a.entry_grants, me.p, ${isAdmin})
    | case when a.collection_ids && me.vc then cairn_collection_flags(a.collection_ids, me.p) else 0 end)`;
}

/**
 * The Asset of the interface as the viewer sees it, built by PostgreSQL as JSON text: a
 * page of 100 assets goes to the client without Node parsing and re-serializing it.
 * `a` is the asset row and `me` the viewer (viewerCte); the star comes as SQL.
 */
export function assetJsonSql(principals: RawBuilder<unknown>, isAdmin: RawBuilder<unknown>, starred: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`json_build_object(
    'id', a.id,
    'title', a.title,
    'alias', a.alias,
    'description', a.description,
    'record_type', a.record_type,
    'tags', a.tags,
    'metadata', a.metadata,
    'owner_type', a.owner_type,
    'owner_id', a.owner_id,
    'collection_ids', array(select c from unnest(a.collection_ids) c where exists (select 1 from collections k where k.id = c)),
    'is_locked', a.is_locked,
    'locked_by', a.locked_by,
    'locked_at', ${sql.raw(isoTime('a.locked_at'))},
    'lock_reason', a.lock_reason,
    'is_starred', ${starred},
    'is_migrating', a.is_migrating,
    'effective_flags', ${myFlags(isAdmin)},
    'access_scope', coalesce(cairn_access_scope(a.readers, ${principals}, false), case when a.collection_ids && me.vc then 'collection' end, case when ${isAdmin} then 'admin' end),
    'created_by', a.created_by,
    'created_at', ${sql.raw(isoTime('a.created_at'))},
    'updated_at', ${sql.raw(isoTime('a.updated_at'))}
  )::text`;
}
