import { sql } from 'kysely';
import { ensureCheckpoint } from './checkpoints.ts';
import type { Projection } from './projection.ts';
import { catchUpShadowLocked, replayIntoShadow, schemaName, type RebuildOptions } from './rebuild.ts';

export type RowDifference = { readonly table: string; readonly side: 'missing' | 'extra'; readonly row: unknown };
export type VerifyOutcome = { readonly projection: string; readonly events: number; readonly differences: number; readonly samples: readonly RowDifference[] };

/** How many differing rows are printed per projection; the count is exact. */
const sampleLimit = 20;

/**
 * `cairn projections verify`: replays the log into scratch copies of the projection's
 * tables, then, holding the live writer off exactly as a rebuild's swap does, brings the
 * copies to where the live tables are and compares them row by row (`EXCEPT ALL` both
 * ways). `missing`: a row the log says should be there and the live table lacks (or has
 * otherwise); `extra`: a live row the log does not account for. Nothing live changes.
 */
export type VerifyOptions = RebuildOptions & {
  /** Called once each table is compared, with how many live rows it checked (counted only when this is set). */
  readonly onCompared?: (table: string, rows: number) => void;
};

export async function verifyProjection(options: VerifyOptions, projection: Projection): Promise<VerifyOutcome> {
  const { db } = options;
  const schema = schemaName('verify', projection);
  await ensureCheckpoint(db, projection);
  try {
    const shadow = await replayIntoShadow(options, projection, schema);
    return await db.transaction().execute(async (trx) => {
      await catchUpShadowLocked(options, projection, shadow, trx);
      await sql`set local search_path to public`.execute(trx);
      let differences = 0;
      const samples: RowDifference[] = [];
      for (const table of projection.tables.filter((t) => !projection.unverified?.includes(t))) {
        const live = sql.table(`public.${table}`);
        const copy = sql.table(`${schema}.${table}`);
        const { rows } = await sql<{ side: 'missing' | 'extra'; row: unknown; total: string }>`
          with missing as (select * from ${copy} except all select * from ${live}),
               extra as (select * from ${live} except all select * from ${copy}),
               both_sides as (select 'missing' as side, to_jsonb(m) as row from missing m union all select 'extra', to_jsonb(e) from extra e)
          select side, row, count(*) over () as total from both_sides limit ${sampleLimit}`.execute(trx);
        differences += Number(rows[0]?.total ?? 0);
        for (const r of rows) samples.push({ table, side: r.side, row: r.row });
        if (options.onCompared) {
          const { rows: counted } = await sql<{ rows: string }>`select count(*)::text as rows from ${live}`.execute(trx);
          options.onCompared(table, Number(counted[0]?.rows ?? 0));
        }
      }
      return { projection: projection.name, events: shadow.applied, differences, samples: samples.slice(0, sampleLimit) };
    });
  } finally {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
  }
}
