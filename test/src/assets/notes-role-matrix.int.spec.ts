import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, type Project, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';

/**
 * Every route of notes, the markdown note and relationships (docs/asset-notes.md), asked
 * by every kind of caller. Each caller meets a fresh asset, prepared for the route (a note
 * or markdown note written by its creator, a relationship to a public asset). Callers
 * named after flags hold exactly those through a user entry; the project roles meet an
 * asset their project owns, whose creator is the project admin.
 */
const flagHolders = {
  // A grant without READ_METADATA leaves the asset hidden.
  writeNotesOnly: 32,
  read: 1,
  readNotes: 1 | 16,
  writeNotes: 1 | 32,
  writeMetadata: 1 | 2,
  manage: 1 | 256,
} as const;
type FlagHolder = keyof typeof flagHolders;
const roles = ['anonymous', 'noGrant', 'writeNotesOnly', 'read', 'readNotes', 'writeNotes', 'writeMetadata', 'manage', 'owner', 'projectAdmin', 'projectMember', 'projectViewer', 'systemAdmin'] as const;
type Role = (typeof roles)[number];
type Expected = Record<Role, number>;
const projectRoles: readonly Role[] = ['projectAdmin', 'projectMember', 'projectViewer'];

/** Everyone who reads the asset gets `ok`; the others cannot tell it exists. */
const readers = (ok: number): Expected => ({
  anonymous: 401,
  noGrant: 404,
  writeNotesOnly: 404,
  read: ok,
  readNotes: ok,
  writeNotes: ok,
  writeMetadata: ok,
  manage: ok,
  owner: ok,
  projectAdmin: ok,
  projectMember: ok,
  projectViewer: ok,
  systemAdmin: ok,
});
/** Readers who hold the flag (or otherwise qualify) get `ok`; other readers 403. */
const holders = (ok: number, ...qualified: Role[]): Expected => ({ ...readers(403), ...Object.fromEntries(qualified.map((r) => [r, ok])) });
/** Project viewers get 85: the READ flags and LIST; members 127: all but DELETE and MANAGE. */
const noteReaders: Role[] = ['readNotes', 'owner', 'projectAdmin', 'projectMember', 'projectViewer', 'systemAdmin'];
const noteWriters: Role[] = ['writeNotes', 'owner', 'projectAdmin', 'projectMember', 'systemAdmin'];
const metadataWriters: Role[] = ['writeMetadata', 'owner', 'projectAdmin', 'projectMember', 'systemAdmin'];
/** Who may change a note written by the asset's creator: its author, and who holds WRITE_NOTES and MANAGE. */
const moderators: Role[] = ['owner', 'projectAdmin', 'systemAdmin'];

type Prepared = { readonly asset: Asset; readonly creator: User; readonly noteId: string; readonly relationshipId: string };
type Prepare = 'note' | 'markdown' | 'relationship';

describe('who may do what on notes, the markdown note and relationships', () => {
  let h: Harness;
  let project: Project;
  let users: Record<Exclude<Role, 'anonymous'>, User>;
  /** An asset every signed-in caller may read: the target of relationships. */
  let publicTarget: Asset;

  beforeAll(async () => {
    h = await startHarness('all');
    const organizationId = await organization(h, 'Notes Matrix Institute');
    const make = async () => h.createUser();
    users = {
      noGrant: await make(),
      writeNotesOnly: await make(),
      read: await make(),
      readNotes: await make(),
      writeNotes: await make(),
      writeMetadata: await make(),
      manage: await make(),
      owner: await make(),
      projectAdmin: await make(),
      projectMember: await make(),
      projectViewer: await make(),
      systemAdmin: await h.createUser({ admin: true }),
    };
    await join(h, organizationId, users.projectAdmin);
    project = await createProject(h, users.projectAdmin, organizationId, 'Notes Matrix');
    await addMember(h, users.projectAdmin, project.id, users.projectMember, 'member');
    await addMember(h, users.projectAdmin, project.id, users.projectViewer, 'viewer');
    publicTarget = await createAsset(h, users.owner, { title: 'Everyone’s' });
    await setPermissions(h, users.owner, publicTarget.id, [{ subject_type: 'public', flags: 1 }]);
  });
  afterAll(async () => h.close());

  async function created(res: request.Test): Promise<{ id?: string }> {
    const answered = await res;
    expect(answered.status, JSON.stringify(answered.body)).toBeLessThan(300);
    return answered.body as { id?: string };
  }

  /** A fresh asset for this caller, with what the route needs on it, written by the asset's creator. */
  async function freshAsset(role: Role, prepare: readonly Prepare[]): Promise<Prepared> {
    const byProject = projectRoles.includes(role);
    const creator = byProject ? users.projectAdmin : users.owner;
    const asset = await createAsset(h, creator, { title: `For ${role}`, ...(byProject ? { owner_type: 'project', owner_id: project.id } : {}) });
    await setPermissions(
      h,
      creator,
      asset.id,
      (Object.keys(flagHolders) as FlagHolder[]).map((holder) => ({ subject_type: 'user', subject_id: users[holder].id, flags: flagHolders[holder] })),
    );
    const w = () => request(h.commandApp);
    // Each on its own stream: written side by side.
    const none: { id?: string } = {};
    const [note, , relationship] = await Promise.all([
      prepare.includes('note') ? created(w().post(`/api/assets/${asset.id}/notes/`).set(bearer(creator)).send({ content: 'by the creator' })) : none,
      prepare.includes('markdown') ? created(w().put(`/api/assets/${asset.id}/markdown-note/`).set(bearer(creator)).send({ content: '# By the creator' })) : none,
      prepare.includes('relationship')
        ? created(w().post(`/api/assets/${asset.id}/relationships/`).set(bearer(creator)).send({ to_asset_id: publicTarget.id, relationship_type: 'References' }))
        : none,
    ]);
    return { asset, creator, noteId: note.id ?? '', relationshipId: relationship.id ?? '' };
  }

  type Call = (auth: Record<string, string>, prepared: Prepared) => Promise<request.Response>;

  /** Every caller meets their own asset, so the callers are asked side by side. */
  async function statuses(call: Call, prepare: readonly Prepare[]): Promise<Expected> {
    const answers = await Promise.all(
      roles.map(async (role) => {
        const caller = role === 'anonymous' ? null : users[role];
        const prepared = await freshAsset(role, prepare);
        return [role, (await call(caller ? bearer(caller) : {}, prepared)).status] as const;
      }),
    );
    return Object.fromEntries(answers) as Expected;
  }

  const w = () => request(h.commandApp);
  const r = () => request(h.queryApp);

  const cases: [string, Call, Expected, Prepare[]][] = [
    ['GET /api/assets/{id}/notes/', (a, p) => r().get(`/api/assets/${p.asset.id}/notes/`).set(a), holders(200, ...noteReaders), ['note']],
    ['POST /api/assets/{id}/notes/', (a, p) => w().post(`/api/assets/${p.asset.id}/notes/`).set(a).send({ content: 'mine' }), holders(201, ...noteWriters), []],
    [
      'PATCH /api/assets/{id}/notes/{note_id}/ (the creator’s note)',
      (a, p) => w().patch(`/api/assets/${p.asset.id}/notes/${p.noteId}/`).set(a).send({ content: 'changed' }),
      holders(200, ...moderators),
      ['note'],
    ],
    ['DELETE /api/assets/{id}/notes/{note_id}/ (the creator’s note)', (a, p) => w().delete(`/api/assets/${p.asset.id}/notes/${p.noteId}/`).set(a), holders(204, ...moderators), ['note']],
    [
      'PATCH /api/assets/{id}/notes/{note_id}/ (one’s own note; else the answer to writing it)',
      async (a, p) => {
        const added = await w().post(`/api/assets/${p.asset.id}/notes/`).set(a).send({ content: 'mine' });
        return added.status === 201 ? w().patch(`/api/assets/${p.asset.id}/notes/${(added.body as { id: string }).id}/`).set(a).send({ content: 'changed' }) : added;
      },
      holders(200, ...noteWriters),
      [],
    ],
    [
      'DELETE /api/assets/{id}/notes/{note_id}/ (one’s own note; else the answer to writing it)',
      async (a, p) => {
        const added = await w().post(`/api/assets/${p.asset.id}/notes/`).set(a).send({ content: 'mine' });
        return added.status === 201 ? w().delete(`/api/assets/${p.asset.id}/notes/${(added.body as { id: string }).id}/`).set(a) : added;
      },
      holders(204, ...noteWriters),
      [],
    ],
    ['GET /api/assets/{id}/markdown-note/', (a, p) => r().get(`/api/assets/${p.asset.id}/markdown-note/`).set(a), holders(200, ...noteReaders), ['markdown']],
    ['GET /api/assets/{id}/markdown-note/?format=html', (a, p) => r().get(`/api/assets/${p.asset.id}/markdown-note/?format=html`).set(a), holders(200, ...noteReaders), ['markdown']],
    ['PUT /api/assets/{id}/markdown-note/ (creating)', (a, p) => w().put(`/api/assets/${p.asset.id}/markdown-note/`).set(a).send({ content: '# Mine' }), holders(201, ...noteWriters), []],
    ['PUT /api/assets/{id}/markdown-note/ (updating)', (a, p) => w().put(`/api/assets/${p.asset.id}/markdown-note/`).set(a).send({ content: '# Mine' }), holders(200, ...noteWriters), ['markdown']],
    ['DELETE /api/assets/{id}/markdown-note/', (a, p) => w().delete(`/api/assets/${p.asset.id}/markdown-note/`).set(a), holders(204, ...noteWriters), ['markdown']],
    ['GET /api/assets/{id}/relationships/', (a, p) => r().get(`/api/assets/${p.asset.id}/relationships/`).set(a), readers(200), ['relationship']],
    ['GET /api/assets/{id}/relationships/?direction=incoming', (a, p) => r().get(`/api/assets/${p.asset.id}/relationships/?direction=incoming`).set(a), readers(200), []],
    [
      'POST /api/assets/{id}/relationships/',
      (a, p) => w().post(`/api/assets/${p.asset.id}/relationships/`).set(a).send({ to_asset_id: publicTarget.id, relationship_type: 'Cites' }),
      holders(201, ...metadataWriters),
      [],
    ],
    [
      'DELETE /api/assets/{id}/relationships/{rel_id}/',
      (a, p) => w().delete(`/api/assets/${p.asset.id}/relationships/${p.relationshipId}/`).set(a),
      holders(204, ...metadataWriters),
      ['relationship'],
    ],
  ];

  it.each(cases)('%s', async (_name, call, expected, prepare) => {
    expect(await statuses(call, prepare)).toEqual(expected);
  });

  it('shows every reader of the asset its relationships, and the notes to who holds READ_NOTES', async () => {
    const visible = roles.filter((role) => role !== 'anonymous' && role !== 'noGrant' && role !== 'writeNotesOnly');
    const seen = Object.fromEntries(
      await Promise.all(
        visible.map(async (role) => {
          const { asset } = await freshAsset(role, ['note', 'relationship']);
          const auth = bearer(users[role]);
          const relationships = (await r().get(`/api/assets/${asset.id}/relationships/`).set(auth).expect(200)).body as unknown[];
          const notes = await r().get(`/api/assets/${asset.id}/notes/`).set(auth);
          return [role, [relationships.length, notes.status === 200 ? (notes.body as unknown[]).length : -notes.status]] as const;
        }),
      ),
    );
    expect(seen).toEqual({
      read: [1, -403],
      readNotes: [1, 1],
      writeNotes: [1, -403],
      writeMetadata: [1, -403],
      manage: [1, -403],
      owner: [1, 1],
      projectAdmin: [1, 1],
      projectMember: [1, 1],
      projectViewer: [1, 1],
      systemAdmin: [1, 1],
    });
  });
});
