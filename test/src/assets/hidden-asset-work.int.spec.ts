import { assetStanding, createReadDb, type ReadDb } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingPool, type CapturedStatement } from '../support/statement-capture.ts';

/**
 * A hidden asset's 404 must not be told from a random id's by its time (issue 23): the read
 * every asset route starts with answers a hidden asset exactly as a missing one, from the
 * same statement, and builds nothing of it (docs/assets.md "Disclosure"). Asserted on what
 * the read returns and sends, not on a clock.
 */
describe('a hidden asset costs what a random id costs', () => {
  let pool: pg.Pool;
  let db: ReadDb;
  let captured: CapturedStatement[] = [];
  const owner = randomUUID();
  const stranger = { userId: randomUUID(), isSystemAdmin: false };
  const hidden = randomUUID();

  beforeAll(async () => {
    ({ pool, captured } = await capturingPool());
    db = createReadDb(pool);
    await pool.query(
      `insert into assets (id, title, alias, description, record_type, tags, metadata, owner_type, owner_id, owner_grants, entry_grants, created_at, updated_at)
       values ($1, 'Private', '', '', 'dataset', '{}', '{}', 'user', $2::uuid, jsonb_build_object('u:' || $2, 511), '{}', now(), now())`,
      [hidden, owner],
    );
  });
  afterAll(async () => pool?.end());

  async function read(id: string, viewer: { userId: string; isSystemAdmin: boolean }) {
    captured.length = 0;
    const standing = await assetStanding(db, id, viewer);
    return { standing, statements: captured.map((s) => s.text) };
  }

  it('answers a hidden asset as nothing, with the same statements as a random id', async () => {
    const ofHidden = await read(hidden, stranger);
    const ofRandom = await read(randomUUID(), stranger);
    expect(ofHidden.standing.asset).toBeNull();
    expect(ofHidden.standing).toEqual(ofRandom.standing);
    expect(ofHidden.statements.length).toBe(ofRandom.statements.length);
    expect(ofHidden.statements).toEqual(ofRandom.statements);
  });

  it('still reads the asset for whoever may read it, and for a write’s answer', async () => {
    const ofOwner = await read(hidden, { userId: owner, isSystemAdmin: false });
    expect(ofOwner.standing.asset).toMatchObject({ id: hidden, flags: 511 });
    expect(JSON.parse(ofOwner.standing.asset?.json ?? 'null')).toMatchObject({ id: hidden, effective_flags: 511 });
    expect((await read(hidden, { userId: randomUUID(), isSystemAdmin: true })).standing.asset).toMatchObject({ id: hidden, flags: 511 });
    const written = await assetStanding(db, hidden, stranger, { evenHidden: true });
    expect(written.asset).toMatchObject({ id: hidden, flags: 0 });
  });
});
