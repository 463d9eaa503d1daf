import { assetStandingRead } from '@cairn/projections';
import { queryInOneRoundTrip, timeOrderedId, WrongExpectedVersionError } from '@cairn/platform';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { startHarness, type Harness } from '../support/harness.ts';

const prepared = async (client: pg.PoolClient | pg.Pool, name: string) =>
  (await client.query<{ n: string }>('select count(*)::text as n from pg_prepared_statements where name = $1', [name])).rows[0]?.n;

/** Statements sent together, in one round trip and one transaction (pipelined-statements.ts). */
describe('queryInOneRoundTrip', () => {
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await createTestDatabase(), max: 1 });
    await pool.query('create table pipeline_notes (id int primary key, body text not null)');
  });
  afterAll(async () => pool?.end());

  const insert = (id: number, body: string) => ({ name: 'pipeline_insert', text: 'insert into pipeline_notes (id, body) values ($1, $2) returning id', values: [id, body] });
  const count = { name: 'pipeline_count', text: 'select count(*)::int as n, array_agg(body order by id) as bodies from pipeline_notes', values: [] };

  it('runs them in order, a later one seeing what an earlier one wrote, and gives each its rows', async () => {
    const [inserted, counted] = await queryInOneRoundTrip(pool, [insert(1, 'one'), count]);
    expect(inserted).toEqual([{ id: 1 }]);
    expect(counted).toEqual([{ n: 1, bodies: ['one'] }]);
  });

  it('prepares each name once per connection, and plain queries on that connection reuse it', async () => {
    await queryInOneRoundTrip(pool, [insert(2, 'two'), count]);
    expect(await prepared(pool, 'pipeline_insert')).toBe('1');
    // pg's own named query on the same connection neither prepares it again nor fails.
    const { rows } = await pool.query({ name: 'pipeline_count', text: count.text, values: [] });
    expect(rows[0]).toEqual({ n: 2, bodies: ['one', 'two'] });
  });

  it('rolls every statement back when one fails, and the pool goes on working', async () => {
    const failing = { name: 'pipeline_fail', text: 'select 1 / (select count(*) - count(*) from pipeline_notes)::int as boom', values: [] };
    await expect(queryInOneRoundTrip(pool, [insert(3, 'three'), failing])).rejects.toThrow(/division by zero/);
    const [, counted] = await queryInOneRoundTrip(pool, [insert(4, 'four'), count]);
    expect(counted).toEqual([{ n: 3, bodies: ['one', 'two', 'four'] }]);
  });

  it('parses a statement sent twice in one pipeline once, on a connection that never saw it', async () => {
    const fresh = new pg.Pool({ connectionString: pool.options.connectionString, max: 1 });
    try {
      const [first, second, counted] = await queryInOneRoundTrip(fresh, [insert(10, 'ten'), insert(11, 'eleven'), count]);
      expect([first, second]).toEqual([[{ id: 10 }], [{ id: 11 }]]);
      expect(counted?.[0]).toMatchObject({ bodies: expect.arrayContaining(['ten', 'eleven']) });
      expect(await prepared(fresh, 'pipeline_insert')).toBe('1');
    } finally {
      await fresh.end();
    }
  });

  it('sends nothing when a value cannot be serialized, so no statement before it commits', async () => {
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    const json = { name: 'pipeline_json', text: 'select $1::jsonb as j', values: [circular] };
    await expect(queryInOneRoundTrip(pool, [insert(20, 'never'), json])).rejects.toThrow(/circular/i);
    const { rows } = await pool.query('select count(*)::int as n from pipeline_notes where id = 20');
    expect(rows[0]).toEqual({ n: 0 });
  });

  it('a failure in the first statement leaves nothing either', async () => {
    await expect(queryInOneRoundTrip(pool, [insert(4, 'again'), count])).rejects.toThrow(/duplicate key/);
    const [, counted] = await queryInOneRoundTrip(pool, [insert(5, 'five'), count]);
    expect(counted).toEqual([{ n: 6, bodies: ['one', 'two', 'four', 'five', 'ten', 'eleven'] }]);
  });
});

/**
 * A write's answer read in the append's own round trip (docs/consistency.md): the read runs
 * after the inline read models' statements, in the same transaction, so it sees them.
 */
describe('a read after the append', () => {
  let h: Harness;
  let user: { id: string; token: string };
  beforeAll(async () => {
    h = await startHarness('all');
    user = await h.createUser();
  });
  afterAll(async () => h?.close());

  const created = (id: string, title: string) => ({
    id: timeOrderedId(),
    type: 'AssetCreated',
    schemaVersion: 1,
    data: { id, createdAt: new Date().toISOString(), collectionId: null, title, alias: '', description: '', recordType: 'dataset', tags: [], metadata: {}, ownerType: 'user', ownerId: user.id },
    metadata: { actorId: user.id, requestId: null, correlationId: timeOrderedId(), causationId: null, occurredAt: new Date().toISOString() },
  });

  it('sees the inline read model of the events it follows, as the caller sees it', async () => {
    const id = timeOrderedId();
    const read = assetStandingRead(h.resources.db, id, { userId: user.id, isSystemAdmin: false });
    const result = await h.resources.eventStore.appendToStream(`asset-${id}`, [created(id, 'Read in the append')], { expectedVersion: 'none', readAfter: read.statement });
    expect(result.readAfter).toBeDefined();
    const asset = read.standing(result.readAfter ?? []).asset;
    expect(asset?.id).toBe(id);
    expect(JSON.parse(asset?.json ?? '{}')).toMatchObject({ id, title: 'Read in the append', effective_flags: 511, access_scope: 'direct', is_starred: false });
  });

  it('on a version conflict stores nothing, and the caller gets the conflict', async () => {
    const id = timeOrderedId();
    const read = assetStandingRead(h.resources.db, id, { userId: user.id, isSystemAdmin: false });
    await h.resources.eventStore.appendToStream(`asset-${id}`, [created(id, 'First')], { expectedVersion: 'none' });
    await expect(h.resources.eventStore.appendToStream(`asset-${id}`, [created(id, 'Second')], { expectedVersion: 'none', readAfter: read.statement })).rejects.toBeInstanceOf(WrongExpectedVersionError);
    const { rows } = await h.resources.pool.query<{ title: string; n: string }>("select title, (select count(*) from events where stream_id = $2)::text as n from assets where id = $1", [id, `asset-${id}`]);
    expect(rows).toEqual([{ title: 'First', n: '1' }]);
  });

  it('answers a create over HTTP with what a later read gives', async () => {
    const response = await request(h.commandApp).post('/api/assets/').set('Authorization', `Bearer ${user.token}`).send({ title: 'Over HTTP', tags: ['a'], metadata: { k: 1 } });
    expect(response.status).toBe(201);
    const again = await request(h.queryApp).get(`/api/assets/${response.body.id}/`).set('Authorization', `Bearer ${user.token}`);
    expect(again.status).toBe(200);
    expect(response.body).toEqual(again.body);
    expect(response.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab]/);
  });
});
