import { projections, secondaryUniqueColumns } from '@cairn/projections';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';

/**
 * planSteps lets an insert move before other operations on its table only when no value of
 * a unique index can be freed in between; it learns which columns those are besides each
 * table's key from `secondaryUniqueColumns`, kept by hand. This holds it to the migrated
 * schema: a new unique index on a read-model table must be named there.
 */
describe('secondaryUniqueColumns', () => {
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await createTestDatabase(), max: 1 });
  });
  afterAll(async () => pool?.end());

  it('names every column of a unique index, other than the primary key, of every read-model table', async () => {
    const tables = [...new Set(projections.flatMap((p) => p.tables))];
    const { rows } = await pool.query<{ table: string; column: string }>(
      `select c.relname as table, a.attname as column
       from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
         join pg_attribute a on a.attrelid = c.oid and a.attnum = any(i.indkey)
       where n.nspname = 'public' and i.indisunique and not i.indisprimary and c.relname = any($1::text[])
       order by 1, 2`,
      [tables],
    );
    const found: Record<string, string[]> = {};
    for (const { table, column } of rows) (found[table] ??= []).push(column);
    const declared = Object.fromEntries(Object.entries(secondaryUniqueColumns).map(([t, cols]) => [t, [...cols].sort()]));
    expect(found).toEqual(declared);
  });
});
