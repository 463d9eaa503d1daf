import { randomUUID } from 'node:crypto';
import { assetStanding, createReadDb, preparedStatement } from '@cairn/projections';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';

/**
 * Reads by key marked `preparedStatement` go to PostgreSQL as named statements, prepared
 * once per connection (docs/assets.md); every other statement stays unnamed.
 */
describe('prepared statements', () => {
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await createTestDatabase(), max: 1 });
  });
  afterAll(async () => pool?.end());

  const prepared = async (db: ReturnType<typeof createReadDb>) =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map((r) => r.statement);

  it('prepares a marked statement once per connection and answers it every time', async () => {
    const db = createReadDb(pool);
    const viewer = { userId: randomUUID(), isSystemAdmin: false };
    for (let i = 0; i < 8; i += 1) expect((await assetStanding(db, randomUUID(), viewer)).asset).toBeNull();
    const statements = await prepared(db);
    expect(statements.filter((s) => s.startsWith('/* cairn:prepared */'))).toHaveLength(1);
    // Unmarked statements are not prepared.
    await sql`select 1 as one`.execute(db);
    expect((await prepared(db)).some((s) => s.includes('select 1 as one'))).toBe(false);
    // Another marked statement gets its own name.
    const answer = await sql<{ n: number }>`${preparedStatement} select ${41}::int + 1 as n`.execute(db);
    expect(answer.rows[0]?.n).toBe(42);
    expect((await prepared(db)).filter((s) => s.startsWith('/* cairn:prepared */'))).toHaveLength(2);
  });
});
