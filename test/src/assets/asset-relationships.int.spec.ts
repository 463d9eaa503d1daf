import { randomUUID } from 'node:crypto';
import { projectionsRebuild } from '@cairn/cli';
import type { relationshipSchema } from '@cairn/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createProject, join, organization, patchProject } from '../projects/projects-fixtures.ts';
import { bearer, uuidPattern, type User } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';

type Relationship = z.output<typeof relationshipSchema>;

/** DECISIONS.md 2 bits. */
const READ = 1;
const WRITE = 2;
const DELETE = 128;
const MANAGE = 256;

const isoTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The parts of an answer that a client can tell apart: status, content type and the exact body. */
const answerOf = (res: request.Response) => ({ status: res.status, type: res.headers['content-type'] as unknown, body: res.text });

describe.each<Shape>(['all', 'split'])('relationships between assets over HTTP (%s)', (shape) => {
  let h: Harness;
  let owner: User;
  /** Holds READ_METADATA and WRITE_METADATA on the owner's shared assets. */
  let writer: User;
  /** Holds READ_METADATA only on the owner's shared assets. */
  let reader: User;
  let systemAdmin: User;
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);

  const relationshipsPath = (assetId: string) => `/api/assets/${assetId}/relationships/`;
  const link = (caller: User, from: string, to: string, type = 'References') => write().post(relationshipsPath(from)).set(bearer(caller)).send({ to_asset_id: to, relationship_type: type });
  const unlink = (caller: User, from: string, id: string) => write().delete(`${relationshipsPath(from)}${id}/`).set(bearer(caller));
  const outgoing = async (caller: User, id: string) => (await read().get(relationshipsPath(id)).set(bearer(caller)).expect(200)).body as Relationship[];
  const incoming = async (caller: User, id: string) => (await read().get(`${relationshipsPath(id)}?direction=incoming`).set(bearer(caller)).expect(200)).body as Relationship[];
  const lock = (id: string, locked: boolean) => write().post(`/api/assets/${id}/lock/`).set(bearer(owner)).send({ locked }).expect(200);
  const linked = async (caller: User, from: string, to: string, type = 'References') => {
    const res = await link(caller, from, to, type);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as Relationship;
  };
  const streamTypes = async (from: string) => (await h.resources.eventStore.readStream(`asset-relationships-${from}`)).events.map((e) => e.type);

  /** An asset of the owner's that the writer may write and the reader may read. */
  async function sharedAsset(title: string): Promise<Asset> {
    const asset = await createAsset(h, owner, { title });
    await setPermissions(h, owner, asset.id, [
      { subject_type: 'user', subject_id: writer.id, flags: READ | WRITE },
      { subject_type: 'user', subject_id: reader.id, flags: READ },
    ]);
    return asset;
  }
  /** An asset of the owner's that nobody else may read. */
  const privateAsset = (title: string) => createAsset(h, owner, { title });

  beforeAll(async () => {
    h = await startHarness(shape);
    [owner, writer, reader, systemAdmin] = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser({ admin: true })];
  });
  afterAll(async () => h.close());

  it('creates an outgoing link (201, Location) that both ends list, oldest first', async () => {
    const [a, b, c] = [await sharedAsset('A'), await sharedAsset('B'), await sharedAsset('C')];
    const res = await link(writer, a.id, b.id, 'IsPartOf').expect(201);
    const first = res.body as Relationship;
    expect(first).toEqual({ id: expect.stringMatching(uuidPattern), from_asset_id: a.id, to_asset_id: b.id, relationship_type: 'IsPartOf', created_by: writer.id, created_at: expect.stringMatching(isoTime) });
    expect(res.headers['location']).toBe(`${relationshipsPath(a.id)}${first.id}/`);
    expect(res.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+(\.[0-9a-z]+)?$/);

    // The same two assets with another type, and a second target; an upper-case id is the same id.
    const second = await linked(writer, a.id, b.id, 'References');
    const third = await linked(owner, a.id, c.id.toUpperCase(), 'IsDerivedFrom');
    expect(third.to_asset_id).toBe(c.id);
    const fromC = await linked(owner, c.id, b.id, 'Cites');

    expect(await outgoing(reader, a.id)).toEqual([first, second, third]);
    expect(await read().get(`${relationshipsPath(a.id)}?direction=outgoing`).set(bearer(reader)).expect(200).then((r) => r.body)).toEqual([first, second, third]);
    expect(await incoming(reader, b.id)).toEqual([first, second, fromC]);
    expect(await incoming(reader, c.id)).toEqual([third]);
    expect(await outgoing(reader, b.id)).toEqual([]);
    expect(await incoming(reader, a.id)).toEqual([]);
    await read().get(`${relationshipsPath(a.id)}?direction=sideways`).set(bearer(reader)).expect(400);
    expect(await streamTypes(a.id)).toEqual(['RelationshipAdded', 'RelationshipAdded', 'RelationshipAdded']);
  });

  it('lists only relationships whose other end the caller may read', async () => {
    const [a, b] = [await sharedAsset('Seen A'), await sharedAsset('Seen B')];
    const hidden = await privateAsset('Unseen');
    const publicOne = await privateAsset('Public');
    await setPermissions(h, owner, publicOne.id, [{ subject_type: 'public', flags: READ }]);
    const toB = await linked(owner, a.id, b.id);
    const toHidden = await linked(owner, a.id, hidden.id);
    const toPublic = await linked(owner, a.id, publicOne.id);
    const hiddenToB = await linked(owner, hidden.id, b.id);
    const publicToB = await linked(owner, publicOne.id, b.id);

    expect(await outgoing(reader, a.id)).toEqual([toB, toPublic]);
    expect(await incoming(reader, b.id)).toEqual([toB, publicToB]);
    for (const who of [owner, systemAdmin]) {
      expect(await outgoing(who, a.id)).toEqual([toB, toHidden, toPublic]);
      expect(await incoming(who, b.id)).toEqual([toB, hiddenToB, publicToB]);
    }
    // Sharing the hidden asset reveals its links; READ_METADATA is what counts.
    await setPermissions(h, owner, hidden.id, [{ subject_type: 'user', subject_id: reader.id, flags: 16 | 32 | 64 }]);
    expect(await outgoing(reader, a.id)).toEqual([toB, toPublic]);
    await setPermissions(h, owner, hidden.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    expect(await outgoing(reader, a.id)).toEqual([toB, toHidden, toPublic]);
    expect(await incoming(reader, b.id)).toEqual([toB, hiddenToB, publicToB]);

    // Lists of an asset the caller cannot read are 404, like an unknown asset's.
    const stranger = await h.createUser();
    const hiddenList = await read().get(relationshipsPath(a.id)).set(bearer(stranger));
    const unknownList = await read().get(relationshipsPath(randomUUID())).set(bearer(stranger));
    expect(answerOf(hiddenList)).toEqual(answerOf(unknownList));
    expect(hiddenList.status).toBe(404);
    await read().get(relationshipsPath(a.id)).expect(401);
  });

  it('needs WRITE_METADATA on the source (403) and READ_METADATA on the target', async () => {
    const [a, b] = [await sharedAsset('Source'), await sharedAsset('Target')];
    const refused = await link(reader, a.id, b.id).expect(403);
    expect(refused.body).toEqual({ status: 403, code: 'permission_denied', detail: expect.any(String) });
    // Who may not write the source learns nothing about the target either.
    expect(answerOf(await link(reader, a.id, (await privateAsset('x')).id))).toEqual(answerOf(refused));
    expect(answerOf(await link(reader, a.id, randomUUID()))).toEqual(answerOf(refused));

    // A source the caller cannot read at all is 404.
    const stranger = await h.createUser();
    const hiddenSource = await link(stranger, a.id, b.id);
    expect(answerOf(hiddenSource)).toEqual(answerOf(await link(stranger, randomUUID(), b.id)));
    expect(hiddenSource.status).toBe(404);

    // A target readable through a READ_METADATA-only grant is enough; DELETE or MANAGE without it are not.
    const target = await privateAsset('Granted target');
    await setPermissions(h, owner, target.id, [{ subject_type: 'user', subject_id: writer.id, flags: DELETE | MANAGE }]);
    await link(writer, a.id, target.id).expect(404);
    await setPermissions(h, owner, target.id, [{ subject_type: 'user', subject_id: writer.id, flags: READ }]);
    await link(writer, a.id, target.id).expect(201);
    await link(systemAdmin, a.id, (await privateAsset('Admin target')).id).expect(201);
  });

  it('answers a target the caller may not read exactly as it answers a random id', async () => {
    const a = await sharedAsset('Prober');
    const hidden = await privateAsset('Secret');
    const deleted = await privateAsset('Gone');
    await write().delete(`/api/assets/${deleted.id}/`).set(bearer(owner)).expect(204);
    // An existing relationship to the hidden asset, so that a duplicate would show if it were decided first.
    await linked(owner, a.id, hidden.id);

    const random = await link(writer, a.id, randomUUID());
    expect(random.status).toBe(404);
    expect(random.headers['content-type']).toMatch(/^application\/json/);
    expect(random.body).toMatchObject({ status: 404, code: 'not_found' });
    for (const target of [hidden.id, hidden.id.toUpperCase(), deleted.id]) {
      for (const type of ['References', 'Cites']) expect(answerOf(await link(writer, a.id, target, type)), target).toEqual(answerOf(random));
    }
    // The same holds while the source is locked: the target is judged first.
    await lock(a.id, true);
    const randomLocked = await link(writer, a.id, randomUUID());
    expect(answerOf(randomLocked)).toEqual(answerOf(random));
    expect(answerOf(await link(writer, a.id, hidden.id))).toEqual(answerOf(randomLocked));
    await lock(a.id, false);
    expect((await outgoing(writer, a.id)).map((r) => r.to_asset_id)).toEqual([]);
  });

  it('refuses a link to the asset itself (400) and types that are not DataCite relation types (400)', async () => {
    const a = await sharedAsset('Narcissus');
    const b = await sharedAsset('Echo');
    const self = await link(writer, a.id, a.id).expect(400);
    expect(self.body).toMatchObject({ status: 400, code: 'self_relationship' });
    await link(writer, a.id, a.id.toUpperCase()).expect(400);

    for (const type of ['references', 'LinksTo', '', 'IsPartOf ']) {
      const res = await link(writer, a.id, b.id, type).expect(400);
      expect(res.body).toMatchObject({ status: 400, errors: { relationship_type: [expect.any(String)] } });
    }
    const missingType = await write().post(relationshipsPath(a.id)).set(bearer(writer)).send({ to_asset_id: b.id }).expect(400);
    expect(Object.keys(missingType.body.errors as object)).toEqual(['relationship_type']);
    for (const to of ['not-a-uuid', 42, undefined]) {
      const res = await write().post(relationshipsPath(a.id)).set(bearer(writer)).send({ to_asset_id: to, relationship_type: 'Cites' }).expect(400);
      expect(Object.keys(res.body.errors as object)).toEqual(['to_asset_id']);
    }
    expect(await outgoing(owner, a.id)).toEqual([]);
  });

  it('answers N identical concurrent creates with one 201 and 409 duplicate_relationship for the rest', async () => {
    const [a, b] = [await sharedAsset('Racing A'), await sharedAsset('Racing B')];
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => link(i % 2 ? writer : owner, a.id, b.id, 'IsSupplementTo')));
    expect(
      answers.map((r) => r.status).toSorted((x, y) => x - y),
      JSON.stringify(answers.map((r) => r.body)),
    ).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const res of answers.filter((r) => r.status === 409)) expect(res.body).toEqual({ status: 409, code: 'duplicate_relationship', detail: expect.any(String) });
    const created = answers.find((r) => r.status === 201)?.body as Relationship;
    expect(await outgoing(owner, a.id)).toEqual([created]);
    expect(await streamTypes(a.id)).toEqual(['RelationshipAdded']);
    // Sequentially too; and once removed it may be added again.
    await link(writer, a.id, b.id, 'IsSupplementTo').expect(409);
    await unlink(writer, a.id, created.id).expect(204);
    const again = await linked(writer, a.id, b.id, 'IsSupplementTo');
    expect(again.id).not.toBe(created.id);
    expect(await outgoing(owner, a.id)).toEqual([again]);
  });

  it('refuses creation and deletion on a locked source (423), not on a locked target', async () => {
    const [a, b] = [await sharedAsset('Locked source'), await sharedAsset('Locked target')];
    const existing = await linked(writer, a.id, b.id);
    await lock(a.id, true);
    const refused = await link(writer, a.id, b.id, 'Cites').expect(423);
    expect(refused.body).toEqual({ status: 423, code: 'asset_locked', detail: expect.any(String) });
    expect((await unlink(writer, a.id, existing.id).expect(423)).body).toMatchObject({ code: 'asset_locked' });
    await unlink(owner, a.id, existing.id).expect(423);
    // Reading still works, and the source's lock does not stop links into it.
    expect(await outgoing(reader, a.id)).toEqual([existing]);
    const intoLocked = await linked(writer, b.id, a.id, 'IsReferencedBy');
    expect(await incoming(reader, a.id)).toEqual([intoLocked]);
    await lock(a.id, false);
    await unlink(writer, a.id, existing.id).expect(204);
  });

  it('deletes a relationship (204, then 404); unknown and foreign ids are 404', async () => {
    const [a, b] = [await sharedAsset('Del A'), await sharedAsset('Del B')];
    const rel = await linked(writer, a.id, b.id);
    const back = await linked(writer, b.id, a.id);
    await unlink(reader, a.id, rel.id).expect(403);
    // A relationship is deleted through its source only.
    await unlink(writer, b.id, rel.id).expect(404);
    await unlink(writer, a.id, randomUUID()).expect(404);
    await write().delete(`${relationshipsPath(a.id)}not-a-uuid/`).set(bearer(writer)).expect(404);
    const res = await unlink(writer, a.id, rel.id).expect(204);
    expect(res.text).toBe('');
    expect((await unlink(writer, a.id, rel.id).expect(404)).body).toMatchObject({ status: 404, code: 'not_found' });
    expect(await outgoing(reader, a.id)).toEqual([]);
    expect(await incoming(reader, a.id)).toEqual([back]);
    expect(await streamTypes(a.id)).toEqual(['RelationshipAdded', 'RelationshipRemoved']);
  });

  it('drops a deleted asset’s relationships from both ends’ lists', async () => {
    const [a, b, c] = [await sharedAsset('Hub'), await sharedAsset('Spoke B'), await sharedAsset('Spoke C')];
    const aToB = await linked(owner, a.id, b.id);
    const aToC = await linked(owner, a.id, c.id);
    const bToA = await linked(owner, b.id, a.id);
    const cToA = await linked(owner, c.id, a.id);
    const bToC = await linked(owner, b.id, c.id);

    await write().delete(`/api/assets/${b.id}/`).set(bearer(owner)).expect(204);
    expect(await outgoing(owner, a.id)).toEqual([aToC]);
    expect(await incoming(owner, a.id)).toEqual([cToA]);
    expect(await incoming(systemAdmin, c.id)).toEqual([aToC]);
    await write().delete(`/api/assets/${a.id}/`).set(bearer(owner)).expect(204);
    expect(await outgoing(systemAdmin, c.id)).toEqual([]);
    expect(await incoming(systemAdmin, c.id)).toEqual([]);
    const rows = await h.resources.pool.query('select id from asset_relationships where id = any($1::uuid[])', [[aToB.id, aToC.id, bToA.id, cToA.id, bToC.id]]);
    expect(rows.rowCount).toBe(0);
    // The deleted asset is a target no more.
    expect(answerOf(await link(owner, c.id, a.id))).toEqual(answerOf(await link(owner, c.id, randomUUID())));
  });

  // Last: every test above left relationships (and removals, and deleted ends) behind.
  it('rebuilds the relationships to the same rows', async () => {
    const snapshot = async () => (await h.resources.pool.query('select * from asset_relationships order by id')).rows;
    const before = await snapshot();
    expect(before.length).toBeGreaterThan(10);
    await projectionsRebuild(h.resources, ['asset-relationships']);
    expect(await snapshot()).toEqual(before);
  });
});

/** Addresses the bundled database places in Germany and the United States (see the projects' geo spec). */
const ip = { DE: '80.128.0.1', US: '8.8.8.8' } as const;

describe('relationships and the geographic restriction of a target’s project', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_TRUSTED_PROXIES: '127.0.0.1,::1' });
  });
  afterAll(async () => h.close());

  it('answers a target behind the restriction like a missing one, and lists no links to it', async () => {
    const admin = await h.createUser();
    const writer = await h.createUser();
    const organizationId = await organization(h, 'Border Institute', 'DE');
    await join(h, organizationId, admin);
    const project = await createProject(h, admin, organizationId, 'Bordered');
    const restricted = await createAsset(h, admin, { title: 'Behind', owner_type: 'project', owner_id: project.id });
    await setPermissions(h, admin, restricted.id, [{ subject_type: 'user', subject_id: writer.id, flags: READ }]);
    const source = await createAsset(h, writer, { title: 'Mine' });
    const before = await linked(source.id, restricted.id);
    await patchProject(h, admin, project.id, { geobound_enabled: true, geobound_basis: 'ip', geobound_allowed_countries: ['DE'] });

    const from = (country: keyof typeof ip, to: string, type = 'Cites') =>
      request(h.commandApp).post(`/api/assets/${source.id}/relationships/`).set(bearer(writer)).set('X-Forwarded-For', ip[country]).send({ to_asset_id: to, relationship_type: type });
    expect(answerOf(await from('US', restricted.id))).toEqual(answerOf(await from('US', randomUUID())));
    expect((await from('US', restricted.id)).status).toBe(404);
    await from('DE', restricted.id).expect(201);

    const list = async (country: keyof typeof ip) =>
      ((await request(h.queryApp).get(`/api/assets/${source.id}/relationships/`).set(bearer(writer)).set('X-Forwarded-For', ip[country]).expect(200)).body as Relationship[]).map((r) => r.relationship_type);
    expect(await list('DE')).toEqual([before.relationship_type, 'Cites']);
    expect(await list('US')).toEqual([]);

    async function linked(from: string, to: string) {
      const res = await request(h.commandApp).post(`/api/assets/${from}/relationships/`).set(bearer(writer)).send({ to_asset_id: to, relationship_type: 'References' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as Relationship;
    }
  });
});
