import { randomUUID } from 'node:crypto';
import { allContracts } from '@cairn/contract';
import type { OperationContract } from '@cairn/platform';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { fsRepository, grantAllocation, upload, type Allocation, type Content } from '../storage/storage-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/**
 * The statuses every write may answer that no guard of its own gives (docs/api-docs.md,
 * "The document says every answer"), each provoked on every write that documents it:
 * 422 to an Idempotency-Key used before with another request, 409 after the lost races
 * of a write that appends with an expected version, 409 (with Retry-After) while a request
 * under the same key still runs; and 423 on the content and migration writes a locked
 * asset refuses.
 */
type ErrorBody = { status: number; code: string; detail: string; errors?: Record<string, string[]> };

const takesKey = (c: OperationContract) => c.side === 'command' && c.method === 'post';
const bodyOf = (res: request.Response) => res.body as ErrorBody;

function expectError(res: request.Response, status: number, code: string, name: string): void {
  expect([res.status, bodyOf(res).code], `${name}: ${JSON.stringify(res.body)}`).toEqual([status, code]);
  // DECISIONS.md 1: one shape, whatever the status.
  expect(bodyOf(res), name).toMatchObject({ status, code, detail: expect.any(String) });
}

/** What the writes below act on: made by a system administrator, before anything is refused. */
type World = {
  organization: string;
  group: string;
  project: string;
  unstarredProject: string;
  countrySet: string;
  fundingAgency: string;
  asset: string;
  other: string;
  note: string;
  relationship: string;
  collection: string;
  repository: string;
  target: string;
  allocation: Allocation;
  notDefault: Allocation;
  content: Content;
  webhook: string;
  webhookDelivery: string;
};

/** Valid bodies of the write POSTs (the key is checked after the body, before anything is looked up). */
const keyedBodies = (w: World, member: User): Record<string, object> => ({
  funding_agencies_create: { name: 'Agency', url: 'https://agency.example.org' },
  groups_create: { organization_id: w.organization, name: 'Group' },
  groups_members_create: { user_id: member.id },
  admin_users_organizations_create: { organization_id: w.organization },
  organizations_create: { name: 'Organization' },
  projects_create: { name: 'Project', organization_id: w.organization },
  projects_members_create: { user_id: member.id, role: 'member' },
  country_sets_create: { organization_id: w.organization, name: 'Set', kind: 'allowed', countries: ['DE'] },
  assets_create: { title: 'Asset' },
  assets_lock_create: { locked: true, reason: 'frozen' },
  assets_permissions_bulk_merge: { asset_ids: [w.asset], permissions: [] },
  assets_notes_create: { content: 'A note' },
  assets_relationships_create: { to_asset_id: w.other, relationship_type: 'References' },
  collections_create: { title: 'Collection' },
  collections_assets_create: { asset_ids: [w.asset] },
  allocations_create: { owner_type: 'user', owner_id: member.id, repository_id: w.repository, limit_bytes: 1 },
  assets_content_create: { repository_id: w.repository, key: `assets/${w.asset}/object` },
  assets_migrations_create: { target_repository_id: w.target },
  assets_content_uploads_create: { filename: 'object.bin', size: 1 },
  webhooks_create: { url: 'https://93.184.215.14/hook' },
});

describe('the answers every write may give', () => {
  let h: Harness;
  let admin: User;
  let member: User;
  let w: World;
  const write = () => request(h.commandApp);

  beforeAll(async () => {
    h = await startHarness('all');
    admin = await h.createUser({ admin: true });
    member = await h.createUser();
    const created = async (res: request.Test) => {
      const answer = await res;
      expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
      return answer.body as { id: string };
    };
    const as = <T extends request.Test>(req: T) => req.set(bearer(admin));
    const organization = (await created(as(write().post('/api/organizations/')).send({ name: 'Writers' }))).id;
    for (const [user, role] of [[admin, 'admin'], [member, 'member']] as const) {
      await as(write().post(`/api/admin/users/${user.id}/organizations/`)).send({ organization_id: organization, role }).expect(201);
    }
    const project = (await created(as(write().post('/api/projects/')).send({ name: 'Starred', organization_id: organization }))).id;
    const unstarredProject = (await created(as(write().post('/api/projects/')).send({ name: 'Not starred', organization_id: organization }))).id;
    await as(write().post(`/api/projects/${project}/star/`)).expect(204);
    const asset = (await createAsset(h, admin, { title: 'Written' })).id;
    const other = (await createAsset(h, admin, { title: 'Other' })).id;
    await as(write().post(`/api/assets/${asset}/star/`)).expect(204);
    const collection = (await created(as(write().post('/api/collections/')).send({ title: 'Holder' }))).id;
    await as(write().post(`/api/collections/${collection}/assets/`)).send({ asset_ids: [asset] }).expect(204);
    await as(write().put(`/api/assets/${asset}/markdown-note/`)).send({ content: '# Notes' }).expect(201);
    const repository = (await fsRepository(h, 'writes')).id;
    const target = (await fsRepository(h, 'writes-target')).id;
    const allocation = await grantAllocation(h, admin, { owner_type: 'user', owner_id: admin.id, repository_id: repository, limit_bytes: 1_000_000 });
    const second = await grantAllocation(h, admin, { owner_type: 'user', owner_id: admin.id, repository_id: target, limit_bytes: 1_000_000 });
    const contentRes = await upload(h, admin, asset, Buffer.from('site,depth\nA,1\n'), { filename: 'samples.csv', contentType: 'text/csv', repositoryId: repository });
    expect(contentRes.status, JSON.stringify(contentRes.body)).toBe(201);
    w = {
      organization,
      group: (await created(as(write().post('/api/groups/')).send({ organization_id: organization, name: 'Readers' }))).id,
      project,
      unstarredProject,
      countrySet: (await created(as(write().post('/api/country-sets/')).send({ organization_id: organization, name: 'Europe', kind: 'allowed', countries: ['DE', 'FR'] }))).id,
      fundingAgency: (await created(as(write().post('/api/funding-agencies/')).send({ name: 'Funder', url: 'https://funder.example.org' }))).id,
      asset,
      other,
      note: (await created(as(write().post(`/api/assets/${asset}/notes/`)).send({ content: 'first' }))).id,
      relationship: (await created(as(write().post(`/api/assets/${asset}/relationships/`)).send({ to_asset_id: other, relationship_type: 'Cites' }))).id,
      collection,
      repository,
      target,
      allocation,
      notDefault: allocation.is_default ? second : allocation,
      content: contentRes.body as Content,
      webhook: (await created(as(write().post('/api/webhooks/')).send({ url: 'https://93.184.215.14/hook' }))).id,
      webhookDelivery: randomUUID(),
    };
    // A logged attempt to replay (no worker runs here): the replay route asks only that it exists.
    await h.resources.pool.query(
      `insert into webhook_deliveries (id, webhook_id, position, change_kind, body, attempt, outcome, duration_ms, attempted_at) values ($1, $2, '0.1', 'asset', '{}', 1, 'failed', 0, now())`,
      [w.webhookDelivery, w.webhook],
    );
    expect(w.notDefault.is_default).toBe(false);
  });
  afterAll(async () => h.close());

  it('422 idempotency_key_reused on every write POST, to a key used before with another request', async () => {
    const key = `used-${randomUUID()}`;
    await write().post('/api/assets/').set(bearer(admin)).set('Idempotency-Key', key).send({ title: 'First use' }).expect(201);
    const bodies = keyedBodies(w, member);
    for (const contract of allContracts.filter(takesKey)) {
      // Ids in the path need not name anything: the key is refused before they are looked up.
      const path = contract.path.replace(/\{\w+\}/g, () => randomUUID());
      const name = `POST ${contract.path}`;
      const res = await write().post(path).set(bearer(admin)).set('Idempotency-Key', key).send(bodies[contract.operationId] ?? {});
      expectError(res, 422, 'idempotency_key_reused', name);
    }
  });

  describe('409 concurrent_modification when every append loses its race', () => {
    // A writer that always takes the version first: a trigger of this test's database inserts
    // a row at the version the append computed, so the append meets the unique constraint on
    // (stream, version), as it does when a writer that does not take the stream's lock won.
    // The competing row goes with the refused transaction: nothing is stored.
    const contest = async (on: boolean) => {
      const client = new pg.Client({ connectionString: h.databaseUrl });
      await client.connect();
      try {
        if (on) {
          await client.query(`create or replace function test_take_version() returns trigger language plpgsql as $$
            begin
              if pg_trigger_depth() = 1 then
                insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
                values (gen_random_uuid(), new.stream_id, new.stream_version, new.type, new.schema_version, new.data, new.metadata);
              end if;
              return new;
            end $$`);
          await client.query('create trigger test_take_version before insert on events for each row execute function test_take_version()');
        } else {
          await client.query('drop trigger if exists test_take_version on events');
        }
      } finally {
        await client.end();
      }
    };
    afterAll(async () => contest(false));

    // Each request would succeed and change something (a write that changes nothing appends nothing).
    const writes = (): [string, () => request.Test][] => {
      const as = <T extends request.Test>(req: T) => req.set(bearer(admin));
      const a = w.asset;
      return [
        ['admin_users_organizations_partial_update', () => as(write().patch(`/api/admin/users/${member.id}/organizations/${w.organization}/`)).send({ role: 'admin' })],
        ['admin_users_organizations_destroy', () => as(write().delete(`/api/admin/users/${member.id}/organizations/${w.organization}/`))],
        ['allocations_create', () => as(write().post('/api/allocations/')).send({ owner_type: 'user', owner_id: member.id, repository_id: w.repository, limit_bytes: 10 })],
        ['allocations_partial_update', () => as(write().patch(`/api/allocations/${w.allocation.id}/`)).send({ limit_bytes: 2_000_000 })],
        ['allocations_default_create', () => as(write().post(`/api/allocations/${w.notDefault.id}/default/`))],
        ['assets_content_destroy', () => as(write().delete(`/api/assets/${a}/content/${w.content.id}/`))],
        ['assets_create', () => as(write().post('/api/assets/')).send({ title: 'Lost' })],
        ['assets_partial_update', () => as(write().patch(`/api/assets/${a}/`)).send({ title: 'Changed' })],
        ['assets_lock_create', () => as(write().post(`/api/assets/${a}/lock/`)).send({ locked: true, reason: 'frozen' })],
        ['assets_star_create', () => as(write().post(`/api/assets/${w.other}/star/`))],
        ['assets_star_destroy', () => as(write().delete(`/api/assets/${a}/star/`))],
        ['assets_permissions_update', () => as(write().put(`/api/assets/${a}/permissions/`)).send({ permissions: [{ subject_type: 'user', subject_id: member.id, flags: 1 }] })],
        ['assets_permissions_bulk_merge', () => as(write().post('/api/assets/permissions/bulk-merge/')).send({ asset_ids: [a], permissions: [{ subject_type: 'user', subject_id: member.id, flags: 3 }] })],
        ['assets_notes_create', () => as(write().post(`/api/assets/${a}/notes/`)).send({ content: 'second' })],
        ['assets_notes_partial_update', () => as(write().patch(`/api/assets/${a}/notes/${w.note}/`)).send({ content: 'edited' })],
        ['assets_notes_destroy', () => as(write().delete(`/api/assets/${a}/notes/${w.note}/`))],
        ['assets_markdown_note_update', () => as(write().put(`/api/assets/${a}/markdown-note/`)).send({ content: '# Changed' })],
        ['assets_markdown_note_destroy', () => as(write().delete(`/api/assets/${a}/markdown-note/`))],
        ['assets_relationships_destroy', () => as(write().delete(`/api/assets/${a}/relationships/${w.relationship}/`))],
        ['assets_migrations_create', () => as(write().post(`/api/assets/${w.other}/migrations/`)).send({ target_repository_id: w.target })],
        ['assets_destroy', () => as(write().delete(`/api/assets/${a}/`))],
        ['collections_create', () => as(write().post('/api/collections/')).send({ title: 'Lost' })],
        ['collections_assets_create', () => as(write().post(`/api/collections/${w.collection}/assets/`)).send({ asset_ids: [w.other] })],
        ['collections_assets_destroy', () => as(write().delete(`/api/collections/${w.collection}/assets/${a}/`))],
        ['collections_permissions_update', () => as(write().put(`/api/collections/${w.collection}/permissions/`)).send({ permissions: [{ subject_type: 'user', subject_id: member.id, flags: 1 }] })],
        ['country_sets_create', () => as(write().post('/api/country-sets/')).send({ organization_id: w.organization, name: 'Lost', kind: 'denied', countries: ['US'] })],
        ['country_sets_partial_update', () => as(write().patch(`/api/country-sets/${w.countrySet}/`)).send({ name: 'Renamed' })],
        ['funding_agencies_create', () => as(write().post('/api/funding-agencies/')).send({ name: 'Lost', url: 'https://lost.example.org' })],
        ['funding_agencies_partial_update', () => as(write().patch(`/api/funding-agencies/${w.fundingAgency}/`)).send({ name: 'Renamed' })],
        ['funding_agencies_destroy', () => as(write().delete(`/api/funding-agencies/${w.fundingAgency}/`))],
        ['groups_create', () => as(write().post('/api/groups/')).send({ organization_id: w.organization, name: 'Lost' })],
        ['groups_partial_update', () => as(write().patch(`/api/groups/${w.group}/`)).send({ name: 'Renamed' })],
        ['organizations_create', () => as(write().post('/api/organizations/')).send({ name: 'Lost' })],
        ['organizations_partial_update', () => as(write().patch(`/api/organizations/${w.organization}/`)).send({ name: 'Renamed' })],
        ['projects_create', () => as(write().post('/api/projects/')).send({ name: 'Lost', organization_id: w.organization })],
        ['projects_partial_update', () => as(write().patch(`/api/projects/${w.project}/`)).send({ description: 'Changed' })],
        ['projects_star_create', () => as(write().post(`/api/projects/${w.unstarredProject}/star/`))],
        ['projects_star_destroy', () => as(write().delete(`/api/projects/${w.project}/star/`))],
        ['projects_destroy', () => as(write().delete(`/api/projects/${w.project}/`))],
        ['webhooks_create', () => as(write().post('/api/webhooks/')).send({ url: 'https://93.184.215.14/lost' })],
        ['webhooks_partial_update', () => as(write().patch(`/api/webhooks/${w.webhook}/`)).send({ status: 'paused' })],
        ['webhooks_deliveries_replay_create', () => as(write().post(`/api/webhooks/${w.webhook}/deliveries/${w.webhookDelivery}/replay/`))],
        ['webhooks_destroy', () => as(write().delete(`/api/webhooks/${w.webhook}/`))],
      ];
    };

    it('answers each write 409 after its retries, in the error shape, and stores nothing', async () => {
      const before = await h.resources.pool.query<{ count: string }>('select count(*)::text as count from events');
      await contest(true);
      for (const [operationId, send] of writes()) {
        const contract = allContracts.find((c) => c.operationId === operationId);
        expect(contract, operationId).toBeDefined();
        expectError(await send(), 409, 'concurrent_modification', operationId);
      }
      await contest(false);
      const after = await h.resources.pool.query<{ count: string }>('select count(*)::text as count from events');
      expect(after.rows[0]?.count).toBe(before.rows[0]?.count);
      // The same write goes through once the races stop.
      await write().patch(`/api/assets/${w.asset}/`).set(bearer(admin)).send({ title: 'Changed' }).expect(200);
    });
  });

  it('409 idempotency_key_in_use with Retry-After while a request under the same key still runs (metadata extraction)', async () => {
    // The first request is held at its append: the events table is locked by another session.
    const blocker = new pg.Client({ connectionString: h.databaseUrl });
    await blocker.connect();
    const path = `/api/assets/${w.asset}/content/${w.content.id}/extract-metadata/`;
    const key = `running-${randomUUID()}`;
    try {
      await blocker.query('begin');
      await blocker.query('lock table events in exclusive mode');
      const first = write().post(path).set(bearer(admin)).set('Idempotency-Key', key).then((res) => res);
      // Until the first request holds the key, a second one would run itself.
      for (let i = 0; i < 100; i += 1) {
        const { rows } = await h.resources.pool.query('select 1 from idempotency_keys where key = $1 and status is null', [key]);
        if (rows.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const second = await write().post(path).set(bearer(admin)).set('Idempotency-Key', key);
      expectError(second, 409, 'idempotency_key_in_use', 'POST extract-metadata');
      expect(second.headers['retry-after']).toMatch(/^\d+$/);
      await blocker.query('rollback');
      expect((await first).status).toBe(200);
    } finally {
      await blocker.end();
    }
  }, 40_000);

  it('423 asset_locked on content removal, migration start and retry while the asset is locked', async () => {
    const started = await write().post(`/api/assets/${w.other}/migrations/`).set(bearer(admin)).send({ target_repository_id: w.target });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const migration = (started.body as { id: string }).id;
    for (const id of [w.asset, w.other]) await write().post(`/api/assets/${id}/lock/`).set(bearer(admin)).send({ locked: true, reason: 'frozen' }).expect(200);
    expectError(await write().delete(`/api/assets/${w.asset}/content/${w.content.id}/`).set(bearer(admin)), 423, 'asset_locked', 'DELETE content');
    expectError(await write().post(`/api/assets/${w.asset}/migrations/`).set(bearer(admin)).send({ target_repository_id: w.target }), 423, 'asset_locked', 'POST migrations');
    expectError(await write().post(`/api/assets/${w.other}/migrations/${migration}/retry/`).set(bearer(admin)), 423, 'asset_locked', 'POST retry');
    // Unlocked, the content goes.
    await write().post(`/api/assets/${w.asset}/lock/`).set(bearer(admin)).send({ locked: false }).expect(200);
    await write().delete(`/api/assets/${w.asset}/content/${w.content.id}/`).set(bearer(admin)).expect(204);
  });
});
