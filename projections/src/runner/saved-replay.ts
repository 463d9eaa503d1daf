import type { GlobalPosition } from '@cairn/platform';
import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import type { Projection } from './projection.ts';

/** How far a rebuild's copy has been replayed; `applied` and `replayed` count events. */
export type ReplayPoint = { readonly position: GlobalPosition; readonly applied: number; readonly replayed: number };

/** Where a stopped rebuild's replay stood, for the next rebuild of this version to resume from. */
export async function saveReplay(db: ReadDb, projection: Projection, shadow: ReplayPoint): Promise<void> {
  const row = {
    name: projection.name,
    version: projection.version,
    major: shadow.position.major.toString(),
    minor: shadow.position.minor.toString(),
    applied: String(shadow.applied),
    replayed: String(shadow.replayed),
    updated_at: new Date(),
  };
  await db.insertInto('projection_rebuilds').values(row).onConflict((c) => c.column('name').doUpdateSet(row)).execute();
}

/**
 * Where an interrupted rebuild of this version stood, when its copy, every table of it, is still there. Taken,
 * not read: once the resumed replay commits a page the copy is past that point, and a crash
 * from then on must not resume from it (a page applied twice would count twice). The next
 * interruption saves where it stands again; after a crash the next rebuild starts over.
 */
export async function savedReplay(db: ReadDb, projection: Projection, schema: string): Promise<ReplayPoint | null> {
  const saved = await db.deleteFrom('projection_rebuilds').where('name', '=', projection.name).returningAll().executeTakeFirst();
  if (!saved) return null;
  // Every table of the projection must be in the copy: one added since (a migration's new
  // read model, same version) would otherwise be written in public through the search path.
  const { rows } = await sql<{ present: boolean }>`select count(*) = ${projection.tables.length} as present from information_schema.tables
    where table_schema = ${schema} and table_name = any(${[...projection.tables]}::text[])`.execute(db);
  if (saved.version !== projection.version || !rows[0]?.present) return null;
  return { position: { major: BigInt(saved.major), minor: BigInt(saved.minor) }, applied: Number(saved.applied), replayed: Number(saved.replayed) };
}
