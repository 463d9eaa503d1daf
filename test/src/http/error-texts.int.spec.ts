import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { createCollection, setCollectionPermissions } from '../collections/collections-fixtures.ts';
import { organizationWith } from '../groups/groups-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/**
 * Issue 25 item 10 and docs/http.md: field errors tell a missing field from one of the wrong
 * type, whatever the schema, and a 403 names the permission once. The wording is decided
 * in platform/src/http/input-messages.ts for every route; these routes are the ones where
 * it once went wrong.
 */

let h: Harness;
let root: User;
let owner: User;
const write = () => request(h.commandApp);

beforeAll(async () => {
  h = await startHarness('all');
  root = await h.createUser({ admin: true });
  owner = await h.createUser();
});
afterAll(async () => h.close());

const fieldsOf = (body: { errors?: Record<string, string[]> }) => body.errors ?? {};

describe('a field of the wrong type', () => {
  it('says what type the field must be, not that it is required', async () => {
    const org = await organizationWith(h, 'Typed Institute');
    const asset = await createAsset(h, owner);
    const cases = [
      { call: write().post('/api/funding-agencies/').set(bearer(root)).send({ name: 5 }), field: 'name', message: 'Must be text, not a number.' },
      { call: write().put(`/api/assets/${asset.id}/markdown-note/`).set(bearer(owner)).send({ content: ['x'] }), field: 'content', message: 'Must be text, not a list.' },
      { call: write().patch(`/api/groups/${org.membersGroupId}/`).set(bearer(org.admin)).send({ name: { x: 1 } }), field: 'name', message: 'Must be text, not a JSON object.' },
      { call: write().post('/api/groups/').set(bearer(org.admin)).send({ organization_id: org.id, name: null }), field: 'name', message: 'Must be text, not null.' },
      { call: write().post(`/api/assets/${asset.id}/lock/`).set(bearer(owner)).send({ locked: 'maybe' }), field: 'locked', message: 'Must be true or false, not text.' },
    ];
    for (const { call, field, message } of cases) {
      const res = await call;
      expect([res.status, res.body.code, fieldsOf(res.body)], JSON.stringify(res.body)).toEqual([400, 'validation_error', { [field]: [message] }]);
    }
  });

  it('names a wrong number as such', async () => {
    // The body is checked before any id in it is looked up.
    const res = await write().post('/api/allocations/').set(bearer(root)).send({ owner_type: 'user', owner_id: owner.id, repository_id: owner.id, limit_bytes: 1.5 });
    expect([res.status, fieldsOf(res.body)]).toEqual([400, { limit_bytes: ['Must be a whole number.'] }]);
  });
});

describe('a missing field', () => {
  it('is "This field is required." whatever its type: allocation create {}', async () => {
    const res = await write().post('/api/allocations/').set(bearer(root)).send({});
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
    const required = ['This field is required.'];
    expect(fieldsOf(res.body)).toEqual({ owner_type: required, owner_id: required, repository_id: required, limit_bytes: required });
  });

  it('a value outside an enumeration lists the values', async () => {
    const res = await write().post('/api/allocations/').set(bearer(root)).send({ owner_type: 'group', owner_id: owner.id, repository_id: owner.id, limit_bytes: 1 });
    expect(fieldsOf(res.body)).toEqual({ owner_type: ['Must be one of user, project, organization.'] });
  });
});

describe('a missing permission', () => {
  it('is named once: "You lack the DELETE permission on the collection."', async () => {
    const reader = await h.createUser();
    const collection = await createCollection(h, owner, { title: 'Kept' });
    await setCollectionPermissions(h, owner, collection.id, [{ subject_type: 'user', subject_id: reader.id, flags: 1 }]);
    const res = await write().delete(`/api/collections/${collection.id}/`).set(bearer(reader));
    expect([res.status, res.body.code, res.body.detail]).toEqual([403, 'permission_denied', 'You lack the DELETE permission on the collection.']);
    const moved = await write().patch(`/api/collections/${collection.id}/`).set(bearer(reader)).send({ title: 'Renamed' });
    expect([moved.status, moved.body.detail]).toEqual([403, 'You lack the WRITE_METADATA permission on the collection.']);
  });
});
