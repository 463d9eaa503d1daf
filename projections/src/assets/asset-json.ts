import { sql, type RawBuilder } from 'kysely';

/** A timestamp as JavaScript's toISOString writes it (milliseconds, `Z`). */
export const isoTime = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The Asset of the interface as the viewer sees it, built by PostgreSQL as JSON text: a
 * page of 100 assets goes to the client without Node parsing and re-serializing it.
 * `a` is the asset row; the viewer's principals, administrator flag and star come as SQL.
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
    'collection_ids', a.collection_ids,
    'is_locked', a.is_locked,
    'locked_by', a.locked_by,
    'locked_at', ${sql.raw(isoTime('a.locked_at'))},
    'lock_reason', a.lock_reason,
    'is_starred', ${starred},
    'is_migrating', a.is_migrating,
    'effective_flags', cairn_effective_flags(a.owner_grants, a.entry_grants, ${principals}, ${isAdmin}),
    'access_scope', cairn_access_scope(a.readers, ${principals}, ${isAdmin}),
    'created_by', a.created_by,
    'created_at', ${sql.raw(isoTime('a.created_at'))},
    'updated_at', ${sql.raw(isoTime('a.updated_at'))}
  )::text`;
}
