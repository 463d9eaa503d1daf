import type { GlobalPosition } from '@cairn/platform';
import { sql, type Kysely } from 'kysely';
import type { ReadDb, ReadModelTables } from '../schema.ts';
import type { Projection } from './projection.ts';

/** How far a rebuild's copy has been replayed; `applied` and `replayed` count events. */
export type ReplayPoint = { readonly position: GlobalPosition; readonly applied: number; readonly replayed: number };

/** A copy's replay point and the migrations applied when the copy was made (currentMigrations). */
export type SavedReplay = ReplayPoint & { readonly migrationsSeen: string };

/** Where a stopped rebuild's replay stood, for the next rebuild of this version to resume from. */
export async function saveReplay(db: ReadDb, projection: Projection, shadow: SavedReplay): Promise<void> {
  const row = {
    name: projection.name,
    version: projection.version,
    major: shadow.position.major.toString(),
    minor: shadow.position.minor.toString(),
    applied: String(shadow.applied),
    replayed: String(shadow.replayed),
    updated_at: sql<Date>`now()`,
    // The migrations the copy was made under (savedReplay compares them).
    migrations_seen: shadow.migrationsSeen,
  };
  await db.insertInto('projection_rebuilds').values(row).onConflict((c) => c.column('name').doUpdateSet(row)).execute();
}

/** Every migration applied, by name: read in a statement's snapshot, a migration not yet committed is not among them. */
const migrationsSeen = sql<string>`(select coalesce(string_agg(m.name, ',' order by m.name), '') from schema_migrations m)`;

/**
 * The migrations applied now, by name. A rebuild reads them before it makes its copy and
 * again under the swap's locks: a migration in between may have changed the live tables, or
 * what their rows hold, after the copy was made from them (rebuild.ts).
 */
export async function currentMigrations(db: Kysely<ReadModelTables>): Promise<string> {
  const { rows } = await sql<{ seen: string }>`select ${migrationsSeen} as seen`.execute(db);
  return rows[0]?.seen ?? '';
}

/**
 * Where an interrupted rebuild of this version stood, when its copy is still there and still
 * has the live tables' shape. Taken, not read: once the resumed replay commits a page the copy
 * is past that point, and a crash from then on must not resume from it (a page applied twice
 * would count twice). The next interruption saves where it stands again; after a crash the
 * next rebuild starts over.
 */
export async function savedReplay(db: ReadDb, projection: Projection, schema: string): Promise<SavedReplay | null> {
  // One transaction: a check that fails on a lost connection leaves the saved point for the next rebuild.
  return db.transaction().execute(async (trx) => {
    const saved = await trx.deleteFrom('projection_rebuilds').where('name', '=', projection.name).returningAll().executeTakeFirst();
    if (!saved || saved.version !== projection.version) return null;
    // A migration since the copy was made may have changed what its rows hold (a function behind a generated column) without changing its shape.
    const migrated = await sql<{ same: boolean }>`select ${migrationsSeen} = ${saved.migrations_seen} as same`.execute(trx);
    if (migrated.rows[0]?.same !== true || !(await copyHasLiveShape(trx, projection, schema))) return null;
    return { position: { major: BigInt(saved.major), minor: BigInt(saved.minor) }, applied: Number(saved.applied), replayed: Number(saved.replayed), migrationsSeen: saved.migrations_seen ?? '' };
  });
}

/**
 * Whether every table of the projection is in the copy with the columns and keys the live one
 * has now. A migration may have changed them since the copy was made, without a new version
 * of the projection: a table added (its rows would be written in public through the search
 * path), a column added (0041 gave the stars their asset's type and tags; the replay writes
 * it, and the copy has none), a column's type or default, a key. Indexes other than keys are
 * built from the live ones after the replay, so they may differ.
 */
async function copyHasLiveShape(db: Kysely<ReadModelTables>, projection: Projection, schema: string): Promise<boolean> {
  const tables = [...projection.tables];
  const { rows } = await sql<{ same: boolean }>`
    with columns as (
      select c.table_schema as s, c.table_name as t,
        json_agg(json_build_array(c.column_name, c.data_type, c.udt_name, c.character_maximum_length, c.numeric_precision, c.numeric_scale, c.datetime_precision,
          c.collation_name, c.is_nullable, c.column_default, c.generation_expression) order by c.column_name)::text as shape
      from information_schema.columns c where c.table_schema in ('public', ${schema}) and c.table_name = any(${tables}::text[]) group by 1, 2),
    keys as (
      -- LIKE copies a check added NOT VALID as a validated one: the same check either way.
      select n.nspname as s, r.relname as t, string_agg(k.conname || ':' || replace(pg_get_constraintdef(k.oid), ' NOT VALID', ''), ',' order by k.conname) as shape
      from pg_constraint k join pg_class r on r.oid = k.conrelid join pg_namespace n on n.oid = r.relnamespace
      where n.nspname in ('public', ${schema}) and r.relname = any(${tables}::text[]) and k.contype in ('p', 'u', 'c') group by 1, 2)
    select count(*) = ${tables.length} as same
    from columns live join columns copy on copy.t = live.t and copy.s = ${schema} and live.s = 'public' and copy.shape = live.shape
    where (select l.shape from keys l where l.s = 'public' and l.t = live.t) is not distinct from (select k.shape from keys k where k.s = ${schema} and k.t = live.t)`.execute(db);
  return rows[0]?.same === true;
}
