import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGroup, patientReads } from '../groups/groups-fixtures.ts';
import { createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createCollection } from '../collections/collections-fixtures.ts';
import { createAsset, setPermissions } from './assets-fixtures.ts';

/** DECISIONS.md 2 bits. */
const READ = 1;
const MANAGE = 256;

type Write = { subject_type: string; subject_id?: string | null; flags: number };
type Entry = { subject: { id: string | null; subject_type: string; name: string; email: string }; flags: number };

/**
 * What permission entries disclose (DECISIONS.md 2, docs/assets.md "Disclosure"): a group,
 * project or organization the caller cannot see is refused exactly like a random id, names
 * of hidden subjects are not answered, and a user's e-mail address only to system
 * administrators and to that user.
 */
describe('permission entries disclose nothing the caller could not otherwise see', () => {
  let h: Harness;
  let owner: User;
  let insider: User;
  let systemAdmin: User;
  /** Existing subjects the owner cannot see (the owner is in no organization). */
  let hidden: { group: string; organization: string; project: string };
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);
  const user = (u: User, flags: number): Write => ({ subject_type: 'user', subject_id: u.id, flags });

  beforeAll(async () => {
    h = await startHarness('all', patientReads);
    [owner, insider, systemAdmin] = [await h.createUser(), await h.createUser(), await h.createUser({ admin: true })];
    const organizationId = await organization(h, 'Hidden Institute');
    await join(h, organizationId, insider, 'admin');
    const group = await createGroup(h, insider, organizationId, 'Hidden group');
    const project = await createProject(h, insider, organizationId, 'Hidden project');
    hidden = { group: group.id, organization: organizationId, project: project.id };
  });
  afterAll(async () => h.close());

  /** Status and exact body text of one write naming `subjectId` as a `kind`, beside a grant that is fine. */
  async function answerTo(kind: string, subjectId: string, send: (permissions: Write[]) => request.Test) {
    const res = await send([user(insider, READ), { subject_type: kind, subject_id: subjectId, flags: READ }]);
    return { status: res.status, body: res.text };
  }

  it.each(['group', 'organization', 'project'])('a hidden %s and a random id get the same 404, on every write that takes entries', async (kind) => {
    const asset = await createAsset(h, owner, { title: `Own ${kind}` });
    const other = await createAsset(h, owner, { title: `Own ${kind} too` });
    const collection = await createCollection(h, owner, { title: `Own ${kind} collection` });
    const existing = hidden[kind as keyof typeof hidden];
    const writes = [
      (permissions: Write[]) => write().put(`/api/assets/${asset.id}/permissions/`).set(bearer(owner)).send({ permissions }),
      (permissions: Write[]) => write().put(`/api/collections/${collection.id}/permissions/`).set(bearer(owner)).send({ permissions }),
      (permissions: Write[]) => write().post('/api/assets/permissions/bulk-merge/').set(bearer(owner)).send({ asset_ids: [asset.id, other.id], permissions }),
    ];
    for (const send of writes) {
      const ofHidden = await answerTo(kind, existing, send);
      const ofRandom = await answerTo(kind, randomUUID(), send);
      expect(ofHidden.status).toBe(404);
      expect(ofHidden).toEqual(ofRandom);
      expect(JSON.parse(ofHidden.body)).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { 'permissions.1.subject_id': [expect.any(String)] } });
      // Upper case is the same id: the same answer again.
      expect(await answerTo(kind, existing.toUpperCase(), send)).toEqual(ofRandom);
    }
    // Nothing was granted.
    expect((await read().get(`/api/assets/${asset.id}/permissions/`).set(bearer(owner)).expect(200)).body).toEqual([]);
  });

  it('a random user id is 404 with the same body; an existing user may be named by anyone holding its id', async () => {
    const asset = await createAsset(h, owner, { title: 'Users' });
    const send = (permissions: Write[]) => write().put(`/api/assets/${asset.id}/permissions/`).set(bearer(owner)).send({ permissions });
    const ofRandom = await answerTo('user', randomUUID(), send);
    expect(ofRandom.status).toBe(404);
    expect(ofRandom).toEqual(await answerTo('group', randomUUID(), send));
    const stranger = await h.createUser();
    expect((await answerTo('user', stranger.id, send)).status).toBe(200);
  });

  it('answers a user subject with its name, and its e-mail address only to system administrators and to that user', async () => {
    const [reader, named] = [await h.createUser(), await h.createUser()];
    const asset = await createAsset(h, owner, { title: 'Addresses' });
    const second = await createAsset(h, owner, { title: 'Addresses too' });
    const entries = [user(reader, READ), user(named, READ)];
    const answered = (await write().put(`/api/assets/${asset.id}/permissions/`).set(bearer(owner)).send({ permissions: entries }).expect(200)).body as Entry[];
    await setPermissions(h, owner, second.id, entries);
    const collection = await createCollection(h, owner, { title: 'Addresses collection' });
    const collectionAnswer = (await write().put(`/api/collections/${collection.id}/permissions/`).set(bearer(owner)).send({ permissions: [...entries, user(reader, READ | MANAGE)] }).expect(200)).body as Entry[];

    const emailsIn = (body: unknown) => JSON.stringify(body).match(/[\w.-]+@example\.org/g) ?? [];
    const asOwner = [
      answered,
      collectionAnswer,
      (await read().get(`/api/assets/${asset.id}/permissions/`).set(bearer(owner)).expect(200)).body,
      (await read().post('/api/assets/permissions/intersection/').set(bearer(owner)).send({ asset_ids: [asset.id, second.id] }).expect(200)).body,
      (await read().get(`/api/collections/${collection.id}/permissions/`).set(bearer(owner)).expect(200)).body,
    ];
    for (const body of asOwner) expect(emailsIn(body)).toEqual([]);
    const nameOf = (body: Entry[], u: User) => body.find((e) => e.subject.id === u.id)?.subject.name;
    expect(nameOf(answered, named)).toMatch(/^User \d+$/);

    // The user themself sees their own address, nobody else's.
    const asReader = (await read().get(`/api/assets/${asset.id}/permissions/`).set(bearer(reader)).expect(200)).body as Entry[];
    expect(emailsIn(asReader)).toEqual([reader.email]);
    expect(emailsIn((await read().get(`/api/collections/${collection.id}/permissions/`).set(bearer(reader)).expect(200)).body)).toEqual([reader.email]);
    // A system administrator sees every address.
    const asAdmin = (await read().get(`/api/assets/${asset.id}/permissions/`).set(bearer(systemAdmin)).expect(200)).body as Entry[];
    expect(emailsIn(asAdmin).sort()).toEqual([reader.email, named.email].sort());
  });

  it('a hidden subject already on the entries reads like a deleted one, and the list read can be sent back', async () => {
    // `insider` sees the group and grants it; `owner` manages the asset but sees no group.
    const asset = await createAsset(h, insider, { title: 'Shared management' });
    await setPermissions(h, insider, asset.id, [user(owner, READ | MANAGE), { subject_type: 'group', subject_id: hidden.group, flags: READ }]);
    const asInsider = (await read().get(`/api/assets/${asset.id}/permissions/`).set(bearer(insider)).expect(200)).body as Entry[];
    expect(asInsider.find((e) => e.subject.id === hidden.group)?.subject.name).toBe('Hidden group');
    const asOwner = (await read().get(`/api/assets/${asset.id}/permissions/`).set(bearer(owner)).expect(200)).body as Entry[];
    expect(asOwner.find((e) => e.subject.id === hidden.group)?.subject).toEqual({ id: hidden.group, subject_type: 'group', name: '', email: '' });
    expect(JSON.stringify(asOwner)).not.toContain('Hidden group');
    // Sent back (with the group's flags changed): accepted, the group kept.
    const back = asOwner.map((e) => ({ subject_type: e.subject.subject_type, subject_id: e.subject.id, flags: e.subject.id === hidden.group ? READ | 2 : e.flags }));
    const res = (await write().put(`/api/assets/${asset.id}/permissions/`).set(bearer(owner)).send({ permissions: back }).expect(200)).body as Entry[];
    expect(res.find((e) => e.subject.id === hidden.group)?.flags).toBe(READ | 2);
    // Another hidden subject, not on the entries, is still refused like a random id.
    const other = await answerTo('project', hidden.project, (permissions) => write().put(`/api/assets/${asset.id}/permissions/`).set(bearer(owner)).send({ permissions }));
    expect(other).toEqual(await answerTo('project', randomUUID(), (permissions) => write().put(`/api/assets/${asset.id}/permissions/`).set(bearer(owner)).send({ permissions })));
  });
});
