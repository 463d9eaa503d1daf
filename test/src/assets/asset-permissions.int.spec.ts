import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToGroup, createGroup, patientReads } from '../groups/groups-fixtures.ts';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, type Project, type User } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';

/** DECISIONS.md 2 bits. */
const READ = 1;
const WRITE = 2;
const READ_NOTES = 16;
const DELETE = 128;
const MANAGE = 256;

type Entry = { subject: { id: string | null; subject_type: string; name: string; email: string }; flags: number };
type Write = { subject_type: string; subject_id?: string | null; flags: number };

describe.each<Shape>(['all', 'split'])('asset permissions over HTTP (%s)', (shape) => {
  let h: Harness;
  let owner: User;
  let stranger: User;
  let systemAdmin: User;
  let orgAdmin: User;
  let organizationId: string;
  let project: Project;
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);

  const getAsset = (caller: User, id: string) => read().get(`/api/assets/${id}/`).set(bearer(caller));
  const statusOf = async (caller: User, id: string) => (await getAsset(caller, id)).status;
  const permissionsOf = async (caller: User, id: string) => (await read().get(`/api/assets/${id}/permissions/`).set(bearer(caller)).expect(200)).body as Entry[];
  const putPermissions = (caller: User, id: string, permissions: Write[]) => write().put(`/api/assets/${id}/permissions/`).set(bearer(caller)).send({ permissions });
  const bulkMerge = (caller: User, assetIds: string[], permissions: Write[]) => write().post('/api/assets/permissions/bulk-merge/').set(bearer(caller)).send({ asset_ids: assetIds, permissions });
  const intersection = (caller: User, assetIds: string[]) => read().post('/api/assets/permissions/intersection/').set(bearer(caller)).send({ asset_ids: assetIds });
  const eventCount = async () => Number((await h.resources.pool.query<{ n: string }>('select count(*) as n from events')).rows[0]?.n);
  /** What a caller sees of an asset: status, and flags and scope when visible. */
  const seen = async (caller: User, id: string) => {
    const res = await getAsset(caller, id);
    return res.status === 200 ? { status: 200, effective_flags: (res.body as Asset).effective_flags, access_scope: (res.body as Asset).access_scope } : { status: res.status };
  };
  const user = (u: User, flags: number): Write => ({ subject_type: 'user', subject_id: u.id, flags });

  /** A new member of the organization (who is in no group or project yet). */
  async function organizationMember(): Promise<User> {
    const u = await h.createUser();
    await join(h, organizationId, u);
    return u;
  }

  beforeAll(async () => {
    h = await startHarness(shape, patientReads);
    [owner, stranger, systemAdmin, orgAdmin] = [await h.createUser(), await h.createUser(), await h.createUser({ admin: true }), await h.createUser()];
    organizationId = await organization(h, 'Polar Institute');
    await join(h, organizationId, orgAdmin, 'admin');
    project = await createProject(h, orgAdmin, organizationId, 'Firn');
    // The owner sees the organization, its groups and the project, so may name them (DECISIONS.md 2).
    await join(h, organizationId, owner);
    await addMember(h, orgAdmin, project.id, owner, 'viewer');
  });
  afterAll(async () => h.close());

  it('reads entries back with their subjects resolved; public has no id', async () => {
    const reader = await h.createUser();
    const group = await createGroup(h, orgAdmin, organizationId, 'Curators');
    const asset = await createAsset(h, owner, { title: 'Shape' });
    const answered = await setPermissions(h, owner, asset.id, [
      { subject_type: 'public', flags: READ },
      user(reader, READ | READ_NOTES),
      { subject_type: 'project', subject_id: project.id, flags: READ | WRITE },
      { subject_type: 'organization', subject_id: organizationId.toUpperCase(), flags: READ },
      { subject_type: 'group', subject_id: group.id, flags: READ | DELETE },
    ]);
    const expected: Entry[] = [
      { subject: { id: group.id, subject_type: 'group', name: 'Curators', email: '' }, flags: READ | DELETE },
      { subject: { id: organizationId, subject_type: 'organization', name: 'Polar Institute', email: '' }, flags: READ },
      { subject: { id: project.id, subject_type: 'project', name: 'Firn', email: '' }, flags: READ | WRITE },
      { subject: { id: null, subject_type: 'public', name: expect.any(String), email: '' }, flags: READ },
      { subject: { id: reader.id, subject_type: 'user', name: expect.stringMatching(/^User \d+$/), email: '' }, flags: READ | READ_NOTES },
    ];
    expect(answered).toEqual(expected);
    expect(await permissionsOf(owner, asset.id)).toEqual(expected);
    // Whoever may read the asset sees who else may; not the names of a group, organization or
    // project they may not see (DECISIONS.md 2), and their own e-mail address only.
    const unnamed = (e: Entry | undefined): Entry | undefined => e && { ...e, subject: { ...e.subject, name: '' } };
    expect(await permissionsOf(reader, asset.id)).toEqual([
      unnamed(expected[0]), unnamed(expected[1]), unnamed(expected[2]), expected[3],
      { ...expected[4], subject: { ...expected[4]?.subject, email: reader.email } },
    ]);
    // A subject named twice: the last entry wins; flags 0 leave it out.
    const twice = await putPermissions(owner, asset.id, [user(reader, READ), user(reader, READ | WRITE), { subject_type: 'group', subject_id: group.id, flags: 0 }]).expect(200);
    expect(twice.body).toEqual([{ subject: expected[4]?.subject, flags: READ | WRITE }]);
  });

  it('refuses unknown subjects (404) and malformed entries (400), changing nothing', async () => {
    const asset = await createAsset(h, owner, { title: 'Guarded' });
    const before = await setPermissions(h, owner, asset.id, [user(stranger, READ)]);
    const events = await eventCount();
    const unknownGroup = randomUUID();
    const res = await putPermissions(owner, asset.id, [user(stranger, READ | WRITE), { subject_type: 'group', subject_id: unknownGroup, flags: READ }]).expect(404);
    expect(res.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { 'permissions.1.subject_id': [expect.any(String)] } });
    // A user id is not a group's, nor a project's.
    await putPermissions(owner, asset.id, [{ subject_type: 'project', subject_id: stranger.id, flags: READ }]).expect(404);
    await putPermissions(owner, asset.id, [{ subject_type: 'public', subject_id: stranger.id, flags: READ }]).expect(400);
    await putPermissions(owner, asset.id, [{ subject_type: 'user', subject_id: null, flags: READ }]).expect(400);
    await putPermissions(owner, asset.id, [{ subject_type: 'robot', subject_id: stranger.id, flags: READ }]).expect(400);
    await putPermissions(owner, asset.id, [user(stranger, 512)]).expect(400);
    await putPermissions(owner, asset.id, [{ subject_type: 'user', subject_id: 'not-a-uuid', flags: READ }]).expect(400);
    await write().put(`/api/assets/${asset.id}/permissions/`).set(bearer(owner)).send({}).expect(400);
    expect(await permissionsOf(owner, asset.id)).toEqual(before);
    expect(await eventCount()).toBe(events);
    // The same entries again record nothing and answer them.
    expect((await putPermissions(owner, asset.id, [user(stranger, READ)]).expect(200)).body).toEqual(before);
    expect(await eventCount()).toBe(events);
  });

  it('lets only MANAGE holders change permissions: 403 for readers, 404 for those who cannot read', async () => {
    const asset = await createAsset(h, owner, { title: 'Managed' });
    const [writer, manager, deleter, blind] = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser()];
    await setPermissions(h, owner, asset.id, [user(writer, READ | WRITE), user(manager, READ | MANAGE), user(deleter, 511 & ~MANAGE), user(blind, MANAGE)]);
    const grant = [user(stranger, READ)];
    const refused = await putPermissions(writer, asset.id, grant).expect(403);
    expect(refused.body).toEqual({ status: 403, code: 'permission_denied', detail: expect.any(String) });
    await putPermissions(deleter, asset.id, grant).expect(403);
    // MANAGE without READ_METADATA leaves the asset hidden.
    const hidden = await putPermissions(blind, asset.id, grant).expect(404);
    const unknown = await putPermissions(blind, randomUUID(), grant).expect(404);
    expect(hidden.body).toEqual(unknown.body);
    await putPermissions(stranger, asset.id, grant).expect(404);
    // Who may not manage learns that before the body is judged.
    await putPermissions(writer, asset.id, [{ subject_type: 'group', subject_id: randomUUID(), flags: READ }]).expect(403);
    await putPermissions(stranger, asset.id, [{ subject_type: 'group', subject_id: randomUUID(), flags: READ }]).expect(404);
    await write().put(`/api/assets/${asset.id}/permissions/`).send({ permissions: grant }).expect(401);
    await read().get(`/api/assets/${asset.id}/permissions/`).set(bearer(stranger)).expect(404);

    // A manager who is not the owner may grant, and even drop their own entry.
    const granted = await putPermissions(manager, asset.id, [user(manager, READ | MANAGE), user(stranger, READ)]).expect(200);
    expect((granted.body as Entry[]).map((e) => e.subject.id).sort()).toEqual([manager.id, stranger.id].sort());
    expect(await seen(stranger, asset.id)).toEqual({ status: 200, effective_flags: READ, access_scope: 'direct' });
    expect(await statusOf(writer, asset.id)).toBe(404);
    await putPermissions(manager, asset.id, []).expect(200);
    expect(await statusOf(manager, asset.id)).toBe(404);
    expect(await seen(owner, asset.id)).toEqual({ status: 200, effective_flags: 511, access_scope: 'direct' });
    // A system administrator manages everything.
    await putPermissions(systemAdmin, asset.id, grant).expect(200);
    expect(await seen(systemAdmin, asset.id)).toEqual({ status: 200, effective_flags: 511, access_scope: 'admin' });
  });

  it('grants to a group take effect at once and follow its membership', async () => {
    const [inGroup, later] = [await organizationMember(), await organizationMember()];
    const group = await createGroup(h, orgAdmin, organizationId, 'Drillers');
    await addToGroup(h, orgAdmin, group.id, inGroup.id);
    const asset = await createAsset(h, owner, { title: 'For the group' });
    expect(await statusOf(inGroup, asset.id)).toBe(404);
    await setPermissions(h, owner, asset.id, [{ subject_type: 'group', subject_id: group.id, flags: READ | WRITE }]);
    expect(await seen(inGroup, asset.id)).toEqual({ status: 200, effective_flags: READ | WRITE, access_scope: 'group' });
    await write().patch(`/api/assets/${asset.id}/`).set(bearer(inGroup)).send({ description: 'written by the group' }).expect(200);
    await write().delete(`/api/assets/${asset.id}/`).set(bearer(inGroup)).expect(403);
    expect(await statusOf(later, asset.id)).toBe(404);

    await addToGroup(h, orgAdmin, group.id, later.id);
    expect(await seen(later, asset.id)).toEqual({ status: 200, effective_flags: READ | WRITE, access_scope: 'group' });
    await write().delete(`/api/groups/${group.id}/members/${inGroup.id}/`).set(bearer(orgAdmin)).expect(204);
    expect(await statusOf(inGroup, asset.id)).toBe(404);
    await write().patch(`/api/assets/${asset.id}/`).set(bearer(inGroup)).send({ description: 'no longer' }).expect(404);

    // A direct grant beside the group's: the flags add up, and the most direct reason is named.
    await setPermissions(h, owner, asset.id, [{ subject_type: 'group', subject_id: group.id, flags: READ | WRITE }, user(later, READ | READ_NOTES)]);
    expect(await seen(later, asset.id)).toEqual({ status: 200, effective_flags: READ | WRITE | READ_NOTES, access_scope: 'direct' });
    // Revoked by PUT.
    await setPermissions(h, owner, asset.id, []);
    expect(await statusOf(later, asset.id)).toBe(404);
  });

  it('grants to an organization take effect at once and follow its membership', async () => {
    const otherOrganization = await organization(h, 'Desert Institute');
    await join(h, otherOrganization, owner);
    const [member, outsider] = [await organizationMember(), await h.createUser()];
    const asset = await createAsset(h, owner, { title: 'For the organization' });
    await setPermissions(h, owner, asset.id, [{ subject_type: 'organization', subject_id: organizationId, flags: READ | READ_NOTES }]);
    expect(await seen(member, asset.id)).toEqual({ status: 200, effective_flags: READ | READ_NOTES, access_scope: 'organization' });
    expect(await seen(orgAdmin, asset.id)).toEqual({ status: 200, effective_flags: READ | READ_NOTES, access_scope: 'organization' });
    expect(await statusOf(outsider, asset.id)).toBe(404);
    await join(h, otherOrganization, outsider);
    expect(await statusOf(outsider, asset.id)).toBe(404);

    await join(h, organizationId, outsider);
    expect(await seen(outsider, asset.id)).toEqual({ status: 200, effective_flags: READ | READ_NOTES, access_scope: 'organization' });
    await write().delete(`/api/admin/users/${member.id}/organizations/${organizationId}/`).set(bearer(systemAdmin)).expect(204);
    expect(await statusOf(member, asset.id)).toBe(404);
    await setPermissions(h, owner, asset.id, [{ subject_type: 'organization', subject_id: otherOrganization, flags: READ }]);
    expect(await seen(outsider, asset.id)).toEqual({ status: 200, effective_flags: READ, access_scope: 'organization' });
    expect(await statusOf(orgAdmin, asset.id)).toBe(404);
  });

  it('grants to a project reach every member, whatever the role, and follow its membership', async () => {
    const [viewer, member, later] = [await organizationMember(), await organizationMember(), await organizationMember()];
    await addMember(h, orgAdmin, project.id, viewer, 'viewer');
    await addMember(h, orgAdmin, project.id, member, 'member');
    const asset = await createAsset(h, owner, { title: 'For the project' });
    await setPermissions(h, owner, asset.id, [{ subject_type: 'project', subject_id: project.id, flags: READ | DELETE }]);
    for (const caller of [viewer, member, orgAdmin]) expect(await seen(caller, asset.id)).toEqual({ status: 200, effective_flags: READ | DELETE, access_scope: 'project' });
    expect(await statusOf(later, asset.id)).toBe(404);
    await addMember(h, orgAdmin, project.id, later, 'viewer');
    expect(await seen(later, asset.id)).toEqual({ status: 200, effective_flags: READ | DELETE, access_scope: 'project' });
    await write().delete(`/api/projects/${project.id}/members/${viewer.id}/`).set(bearer(orgAdmin)).expect(204);
    expect(await statusOf(viewer, asset.id)).toBe(404);
    // A grant is not ownership: the project's admin holds only the granted flags.
    await putPermissions(orgAdmin, asset.id, []).expect(403);
    await write().delete(`/api/assets/${asset.id}/`).set(bearer(member)).expect(204);
  });

  it('grants to public reach every signed-in caller', async () => {
    const asset = await createAsset(h, owner, { title: 'For everyone' });
    const anyone = await h.createUser();
    expect(await statusOf(anyone, asset.id)).toBe(404);
    await setPermissions(h, owner, asset.id, [{ subject_type: 'public', subject_id: null, flags: READ | READ_NOTES }]);
    expect(await seen(anyone, asset.id)).toEqual({ status: 200, effective_flags: READ | READ_NOTES, access_scope: 'public' });
    expect(await seen(await h.createUser(), asset.id)).toEqual({ status: 200, effective_flags: READ | READ_NOTES, access_scope: 'public' });
    // The interface asks for credentials on every asset route.
    await read().get(`/api/assets/${asset.id}/`).expect(401);
    // The owner's own reason comes first; a system administrator in no entry is `admin`.
    expect(await seen(owner, asset.id)).toEqual({ status: 200, effective_flags: 511, access_scope: 'direct' });
    expect(await seen(systemAdmin, asset.id)).toEqual({ status: 200, effective_flags: 511, access_scope: 'public' });
    await setPermissions(h, owner, asset.id, []);
    expect(await statusOf(anyone, asset.id)).toBe(404);
    expect(await seen(systemAdmin, asset.id)).toEqual({ status: 200, effective_flags: 511, access_scope: 'admin' });
  });

  describe('bulk merge', () => {
    it('merges the entries into every listed asset: given subjects win, flags 0 remove, others stay', async () => {
      const [kept, changed, removed, added] = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser()];
      const a = await createAsset(h, owner, { title: 'Bulk A' });
      const b = await createAsset(h, owner, { title: 'Bulk B' });
      await setPermissions(h, owner, a.id, [user(kept, READ), user(changed, READ), user(removed, READ)]);
      const res = await bulkMerge(owner, [a.id, b.id.toUpperCase(), a.id], [user(changed, READ | WRITE), user(removed, 0), user(added, READ | MANAGE)]).expect(204);
      expect(res.text).toBe('');
      const flagsById = async (id: string) => Object.fromEntries((await permissionsOf(owner, id)).map((e) => [e.subject.id, e.flags]));
      expect(await flagsById(a.id)).toEqual({ [kept.id]: READ, [changed.id]: READ | WRITE, [added.id]: READ | MANAGE });
      expect(await flagsById(b.id)).toEqual({ [changed.id]: READ | WRITE, [added.id]: READ | MANAGE });
      expect(await seen(changed, b.id)).toEqual({ status: 200, effective_flags: READ | WRITE, access_scope: 'direct' });
      expect(await statusOf(removed, a.id)).toBe(404);
      // A manager by grant may merge too; merging what is already there records nothing.
      const events = await eventCount();
      await bulkMerge(added, [a.id, b.id], [user(changed, READ | WRITE)]).expect(204);
      expect(await eventCount()).toBe(events);
    });

    it('is all or nothing: a missing or hidden asset is 404, one without MANAGE is 403, and no asset changes', async () => {
      const [reader, newcomer] = [await h.createUser(), await h.createUser()];
      const a = await createAsset(h, owner, { title: 'All A' });
      const b = await createAsset(h, owner, { title: 'All B' });
      const hidden = await createAsset(h, stranger, { title: 'Not yours' });
      const readable = await createAsset(h, stranger, { title: 'Readable only' });
      await setPermissions(h, stranger, readable.id, [user(owner, READ | WRITE | DELETE)]);
      await setPermissions(h, owner, a.id, [user(reader, READ)]);
      const before = { a: await permissionsOf(owner, a.id), b: await permissionsOf(owner, b.id), readable: await permissionsOf(stranger, readable.id) };
      const events = await eventCount();
      const merge = [user(newcomer, READ), user(reader, 0)];

      const missing = await bulkMerge(owner, [a.id, randomUUID(), b.id], merge).expect(404);
      expect(missing.body).toMatchObject({ status: 404, code: 'not_found' });
      await bulkMerge(owner, [a.id, hidden.id, b.id], merge).expect(404);
      const forbidden = await bulkMerge(owner, [a.id, b.id, readable.id], merge).expect(403);
      expect(forbidden.body).toEqual({ status: 403, code: 'permission_denied', detail: expect.any(String) });
      // Hidden beats forbidden: nothing is learnt about the assets one may not see.
      await bulkMerge(owner, [readable.id, hidden.id], merge).expect(404);
      await bulkMerge(owner, [a.id, b.id], [user(newcomer, READ), { subject_type: 'group', subject_id: randomUUID(), flags: READ }]).expect(404);
      await bulkMerge(owner, [], merge).expect(400);
      await bulkMerge(owner, ['not-a-uuid'], merge).expect(400);
      await write().post('/api/assets/permissions/bulk-merge/').send({ asset_ids: [a.id], permissions: merge }).expect(401);

      expect(await eventCount()).toBe(events);
      expect({ a: await permissionsOf(owner, a.id), b: await permissionsOf(owner, b.id), readable: await permissionsOf(stranger, readable.id) }).toEqual(before);
      expect(await statusOf(newcomer, a.id)).toBe(404);
      expect(await statusOf(newcomer, b.id)).toBe(404);
      expect(await statusOf(reader, a.id)).toBe(200);
    });
  });

  describe('intersection', () => {
    it('answers the entries every listed asset has, with the flags they share', async () => {
      const [both, onlyA, weaker] = [await h.createUser(), await h.createUser(), await h.createUser()];
      const a = await createAsset(h, owner, { title: 'Meet A' });
      const b = await createAsset(h, owner, { title: 'Meet B' });
      const c = await createAsset(h, owner, { title: 'Meet C' });
      await setPermissions(h, owner, a.id, [user(both, READ | WRITE | DELETE), user(onlyA, READ), user(weaker, WRITE), { subject_type: 'public', flags: READ | READ_NOTES }]);
      await setPermissions(h, owner, b.id, [user(both, READ | WRITE | MANAGE), user(weaker, DELETE), { subject_type: 'public', flags: READ }]);
      const res = await intersection(owner, [a.id, b.id]).expect(200);
      expect(res.body).toEqual([
        { subject: { id: null, subject_type: 'public', name: expect.any(String), email: '' }, flags: READ },
        { subject: { id: both.id, subject_type: 'user', name: expect.any(String), email: '' }, flags: READ | WRITE },
      ]);
      // One asset: all of its entries; an asset with none: nothing in common.
      expect(((await intersection(owner, [a.id]).expect(200)).body as Entry[]).length).toBe(4);
      expect((await intersection(owner, [a.id, b.id, c.id]).expect(200)).body).toEqual([]);
      // Reading is enough: `both` reads each asset.
      // (`both` reads its own e-mail address; nobody else's.)
      const [publicEntry, bothEntry] = res.body as Entry[];
      expect((await intersection(both, [b.id, a.id]).expect(200)).body).toEqual([publicEntry, { ...bothEntry, subject: { ...bothEntry?.subject, email: both.email } }]);
      // Any asset the caller cannot read is 404, like one that does not exist.
      await intersection(onlyA, [a.id, c.id]).expect(404);
      await intersection(owner, [a.id, randomUUID()]).expect(404);
      await intersection(owner, []).expect(400);
      await read().post('/api/assets/permissions/intersection/').send({ asset_ids: [a.id] }).expect(401);
    });
  });
});
