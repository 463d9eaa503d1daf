import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, type Asset } from '../assets/assets-fixtures.ts';
import { createCollection, type Collection } from '../collections/collections-fixtures.ts';
import { createGroup, organizationWith } from '../groups/groups-fixtures.ts';
import { createCountrySet, createProject } from '../projects/projects-fixtures.ts';
import { fsRepository, grantAllocation } from '../storage/storage-fixtures.ts';
import { bearer, type Group, type Project, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/**
 * DECISIONS.md 1: an id inside a body that names nothing the caller may see answers 404
 * `not_found` naming the field, the same body for an unknown id and a hidden one; a
 * malformed UUID stays 400. One row per body field that names an id (docs/http.md,
 * "Ids inside bodies").
 */
type World = {
  alice: User;
  admin: User;
  bob: User;
  asset: Asset;
  collection: Collection;
  project: Project;
  group: Group;
  repositoryId: string;
  hidden: { asset: string; collection: string; project: string; organization: string; countrySet: string; user: string };
  organizationId: string;
};

type Case = {
  readonly route: string;
  /** The field the answer names. */
  readonly field: string;
  /** Sends the request with `id` in the field. */
  readonly send: (w: World, id: string) => request.Test;
  /** An id that exists but that the caller may not see or use; none where every id of the kind is visible. */
  readonly hidden?: (w: World) => string;
};

let h: Harness;
let w: World;
const write = () => request(h.commandApp);
const read = () => request(h.queryApp);

const cases: readonly Case[] = [
  { route: 'POST /api/assets/', field: 'collection_id', send: (w, id) => write().post('/api/assets/').set(bearer(w.alice)).send({ title: 'T', collection_id: id }), hidden: (w) => w.hidden.collection },
  {
    route: 'POST /api/assets/',
    field: 'owner_id',
    send: (w, id) => write().post('/api/assets/').set(bearer(w.alice)).send({ title: 'T', owner_type: 'project', owner_id: id }),
    hidden: (w) => w.hidden.project,
  },
  {
    route: 'PATCH /api/assets/{id}/',
    field: 'owner_id',
    send: (w, id) => write().patch(`/api/assets/${w.asset.id}/`).set(bearer(w.alice)).send({ owner_type: 'project', owner_id: id }),
    hidden: (w) => w.hidden.project,
  },
  {
    route: 'POST /api/assets/{id}/relationships/',
    field: 'to_asset_id',
    send: (w, id) => write().post(`/api/assets/${w.asset.id}/relationships/`).set(bearer(w.alice)).send({ to_asset_id: id, relationship_type: 'Cites' }),
    hidden: (w) => w.hidden.asset,
  },
  {
    route: 'PUT /api/assets/{id}/permissions/',
    field: 'permissions.0.subject_id',
    send: (w, id) => write().put(`/api/assets/${w.asset.id}/permissions/`).set(bearer(w.alice)).send({ permissions: [{ subject_type: 'project', subject_id: id, flags: 1 }] }),
    hidden: (w) => w.hidden.project,
  },
  {
    route: 'POST /api/assets/permissions/bulk-merge/',
    field: 'asset_ids.1',
    send: (w, id) => write().post('/api/assets/permissions/bulk-merge/').set(bearer(w.alice)).send({ asset_ids: [w.asset.id, id], permissions: [{ subject_type: 'public', flags: 1 }] }),
    hidden: (w) => w.hidden.asset,
  },
  {
    route: 'POST /api/assets/permissions/intersection/',
    field: 'asset_ids.1',
    send: (w, id) => read().post('/api/assets/permissions/intersection/').set(bearer(w.alice)).send({ asset_ids: [w.asset.id, id] }),
    hidden: (w) => w.hidden.asset,
  },
  { route: 'POST /api/collections/', field: 'parent_id', send: (w, id) => write().post('/api/collections/').set(bearer(w.alice)).send({ title: 'T', parent_id: id }), hidden: (w) => w.hidden.collection },
  {
    route: 'POST /api/collections/',
    field: 'owner_id',
    send: (w, id) => write().post('/api/collections/').set(bearer(w.alice)).send({ title: 'T', owner_type: 'project', owner_id: id }),
    hidden: (w) => w.hidden.project,
  },
  { route: 'POST /api/collections/', field: 'preferred_repository_id', send: (w, id) => write().post('/api/collections/').set(bearer(w.alice)).send({ title: 'T', preferred_repository_id: id }) },
  {
    route: 'PATCH /api/collections/{id}/',
    field: 'parent_id',
    send: (w, id) => write().patch(`/api/collections/${w.collection.id}/`).set(bearer(w.alice)).send({ parent_id: id }),
    hidden: (w) => w.hidden.collection,
  },
  {
    route: 'PATCH /api/collections/{id}/',
    field: 'preferred_repository_id',
    send: (w, id) => write().patch(`/api/collections/${w.collection.id}/`).set(bearer(w.alice)).send({ preferred_repository_id: id }),
  },
  {
    route: 'POST /api/collections/{id}/assets/',
    field: 'asset_ids.0',
    send: (w, id) => write().post(`/api/collections/${w.collection.id}/assets/`).set(bearer(w.alice)).send({ asset_ids: [id] }),
    hidden: (w) => w.hidden.asset,
  },
  {
    route: 'PUT /api/collections/{id}/permissions/',
    field: 'permissions.0.subject_id',
    send: (w, id) => write().put(`/api/collections/${w.collection.id}/permissions/`).set(bearer(w.alice)).send({ permissions: [{ subject_type: 'organization', subject_id: id, flags: 1 }] }),
    hidden: (w) => w.hidden.organization,
  },
  { route: 'POST /api/projects/', field: 'organization_id', send: (w, id) => write().post('/api/projects/').set(bearer(w.alice)).send({ name: 'P', organization_id: id }), hidden: (w) => w.hidden.organization },
  {
    route: 'PATCH /api/projects/{id}/',
    field: 'geobound_allowed_country_set',
    send: (w, id) => write().patch(`/api/projects/${w.project.id}/`).set(bearer(w.alice)).send({ geobound_allowed_country_set: id }),
    hidden: (w) => w.hidden.countrySet,
  },
  // Every active user may be added; a deactivated one answers like an unknown id.
  { route: 'POST /api/projects/{id}/members/', field: 'user_id', send: (w, id) => write().post(`/api/projects/${w.project.id}/members/`).set(bearer(w.alice)).send({ user_id: id }) },
  {
    route: 'POST /api/country-sets/',
    field: 'organization_id',
    send: (w, id) => write().post('/api/country-sets/').set(bearer(w.alice)).send({ organization_id: id, name: 'S', kind: 'allowed' }),
    hidden: (w) => w.hidden.organization,
  },
  { route: 'POST /api/groups/', field: 'organization_id', send: (w, id) => write().post('/api/groups/').set(bearer(w.alice)).send({ organization_id: id, name: 'G' }), hidden: (w) => w.hidden.organization },
  // A user outside the group's organization is not one the caller may name there.
  { route: 'POST /api/groups/{id}/members/', field: 'user_id', send: (w, id) => write().post(`/api/groups/${w.group.id}/members/`).set(bearer(w.alice)).send({ user_id: id }), hidden: (w) => w.hidden.user },
  {
    route: 'POST /api/allocations/',
    field: 'owner_id',
    send: (w, id) => write().post('/api/allocations/').set(bearer(w.admin)).send({ owner_type: 'user', owner_id: id, repository_id: w.repositoryId, limit_bytes: 10 }),
  },
  {
    route: 'POST /api/allocations/',
    field: 'repository_id',
    send: (w, id) => write().post('/api/allocations/').set(bearer(w.admin)).send({ owner_type: 'user', owner_id: w.alice.id, repository_id: id, limit_bytes: 10 }),
  },
  {
    route: 'POST /api/assets/{id}/content/ (multipart)',
    field: 'repository_id',
    send: (w, id) => write().post(`/api/assets/${w.asset.id}/content/`).set(bearer(w.alice)).field('repository_id', id).attach('file', Buffer.from('bytes'), 'b.bin'),
  },
  {
    route: 'POST /api/assets/{id}/migrations/',
    field: 'target_repository_id',
    send: (w, id) => write().post(`/api/assets/${w.asset.id}/migrations/`).set(bearer(w.alice)).send({ target_repository_id: id }),
  },
  {
    route: 'POST /api/admin/users/{id}/organizations/',
    field: 'organization_id',
    send: (w, id) => write().post(`/api/admin/users/${w.bob.id}/organizations/`).set(bearer(w.admin)).send({ organization_id: id }),
  },
];

beforeAll(async () => {
  h = await startHarness('all');
  const mine = await organizationWith(h, 'Mine');
  const theirs = await organizationWith(h, 'Theirs');
  const alice = mine.admin;
  const bob = theirs.admin;
  const admin = await h.createUser({ admin: true });
  const { id: repositoryId } = await fsRepository(h, 'refs');
  await grantAllocation(h, admin, { owner_type: 'user', owner_id: alice.id, repository_id: repositoryId, limit_bytes: 1000 });
  const project = await createProject(h, alice, mine.id, 'Visible');
  const hiddenProject = await createProject(h, bob, theirs.id, 'Hidden');
  w = {
    alice,
    admin,
    bob,
    asset: await createAsset(h, alice, { title: 'Mine' }),
    collection: await createCollection(h, alice, { title: 'Mine' }),
    project,
    group: await createGroup(h, alice, mine.id, 'Team'),
    repositoryId,
    organizationId: mine.id,
    hidden: {
      asset: (await createAsset(h, bob, { title: 'Theirs' })).id,
      collection: (await createCollection(h, bob, { title: 'Theirs' })).id,
      project: hiddenProject.id,
      organization: theirs.id,
      countrySet: (await createCountrySet(h, bob, theirs.id, 'Theirs', 'allowed', ['DE'])).id,
      user: theirs.member.id,
    },
  };
});
afterAll(async () => {
  await h.close();
});

describe('ids inside bodies', () => {
  it.each(cases.map((c) => [`${c.route} ${c.field}`, c] as const))('%s: unknown and hidden ids are the same 404 naming the field; a malformed one is 400', async (_name, c) => {
    const unknown = await c.send(w, randomUUID());
    expect(unknown.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { [c.field]: ['Not found.'] } });
    if (c.hidden) {
      const hidden = await c.send(w, c.hidden(w));
      expect([hidden.status, hidden.body]).toEqual([404, unknown.body]);
    }
    const malformed = await c.send(w, 'not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(Object.keys(malformed.body.errors ?? {})).toContain(c.field);
  });

  it('lists 404 for each of these operations in the OpenAPI document, routes without a path id included', async () => {
    const document = (await read().get('/api/schema/').expect(200)).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    for (const c of cases) {
      const [method = '', path = ''] = c.route.split(' ');
      expect(document.paths[path]?.[method.toLowerCase()]?.responses['404'], c.route).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
    }
  });
});
