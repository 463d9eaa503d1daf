import { randomUUID } from 'node:crypto';
import { projectionsRebuild } from '@cairn/cli';
import type { markdownNoteSchema, noteSchema } from '@cairn/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { bearer, uuidPattern, type User } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';

type Note = z.output<typeof noteSchema>;
type MarkdownNote = z.output<typeof markdownNoteSchema>;

/** DECISIONS.md 2 bits. */
const READ = 1;
const READ_NOTES = 16;
const WRITE_NOTES = 32;
const MANAGE = 256;

const isoTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each<Shape>(['all', 'split'])('notes and the markdown note over HTTP (%s)', (shape) => {
  let h: Harness;
  let owner: User;
  /** READ_METADATA, READ_NOTES and WRITE_NOTES: writes and reads notes, moderates none. */
  let writer: User;
  /** READ_METADATA, WRITE_NOTES and MANAGE: moderates everyone's notes. */
  let manager: User;
  /** READ_METADATA and READ_NOTES only. */
  let reader: User;
  let systemAdmin: User;
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);

  const notesPath = (assetId: string) => `/api/assets/${assetId}/notes/`;
  const notePath = (assetId: string, noteId: string) => `/api/assets/${assetId}/notes/${noteId}/`;
  const markdownPath = (assetId: string) => `/api/assets/${assetId}/markdown-note/`;
  const addNote = (caller: User, assetId: string, content: unknown) => write().post(notesPath(assetId)).set(bearer(caller)).send({ content });
  const editNote = (caller: User, assetId: string, noteId: string, content: unknown) => write().patch(notePath(assetId, noteId)).set(bearer(caller)).send({ content });
  const deleteNote = (caller: User, assetId: string, noteId: string) => write().delete(notePath(assetId, noteId)).set(bearer(caller));
  const listNotes = async (caller: User, assetId: string) => (await read().get(notesPath(assetId)).set(bearer(caller)).expect(200)).body as Note[];
  const putMarkdown = (caller: User, assetId: string, content: unknown) => write().put(markdownPath(assetId)).set(bearer(caller)).send({ content });
  const getMarkdown = (caller: User, assetId: string, query = '') => read().get(`${markdownPath(assetId)}${query}`).set(bearer(caller));
  const deleteMarkdown = (caller: User, assetId: string) => write().delete(markdownPath(assetId)).set(bearer(caller));
  const eventCount = async () => Number((await h.resources.pool.query<{ n: string }>('select count(*) as n from events')).rows[0]?.n);
  const streamTypes = async (stream: string) => (await h.resources.eventStore.readStream(stream)).events.map((e) => e.type);

  /** An asset of the owner's, shared with the writer, the manager and the reader. */
  async function sharedAsset(title = 'Noted'): Promise<Asset> {
    const asset = await createAsset(h, owner, { title });
    await setPermissions(h, owner, asset.id, [
      { subject_type: 'user', subject_id: writer.id, flags: READ | READ_NOTES | WRITE_NOTES },
      { subject_type: 'user', subject_id: manager.id, flags: READ | WRITE_NOTES | MANAGE },
      { subject_type: 'user', subject_id: reader.id, flags: READ | READ_NOTES },
    ]);
    return asset;
  }

  beforeAll(async () => {
    h = await startHarness(shape);
    [owner, writer, manager, reader, systemAdmin] = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser({ admin: true })];
  });
  afterAll(async () => h.close());

  describe('notes', () => {
    it('adds a note (201, Location, the caller as author), lists it, edits it (200) and deletes it (204, then 404)', async () => {
      const asset = await sharedAsset();
      const res = await addNote(writer, asset.id, 'First thoughts').expect(201);
      const note = res.body as Note;
      expect(note).toEqual({
        id: expect.stringMatching(uuidPattern),
        asset_id: asset.id,
        author_id: writer.id,
        author_name: expect.stringMatching(/^User \d+$/),
        content: 'First thoughts',
        created_at: expect.stringMatching(isoTime),
        updated_at: note.created_at,
      });
      expect(res.headers['location']).toBe(notePath(asset.id, note.id));
      expect(res.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+\.[0-9a-z]+$/);
      expect(await listNotes(reader, asset.id)).toEqual([note]);

      await pause(5);
      const edited = (await editNote(writer, asset.id, note.id, 'Second thoughts').expect(200)).body as Note;
      expect(edited).toEqual({ ...note, content: 'Second thoughts', updated_at: expect.stringMatching(isoTime) });
      expect(edited.updated_at > note.updated_at).toBe(true);
      expect(await listNotes(owner, asset.id)).toEqual([edited]);

      // The same content again records nothing and answers the note as it is.
      const events = await eventCount();
      expect((await editNote(writer, asset.id, note.id, 'Second thoughts').expect(200)).body).toEqual(edited);
      expect(await eventCount()).toBe(events);

      const deleted = await deleteNote(writer, asset.id, note.id).expect(204);
      expect(deleted.text).toBe('');
      expect(await listNotes(owner, asset.id)).toEqual([]);
      expect((await deleteNote(writer, asset.id, note.id).expect(404)).body).toMatchObject({ status: 404, code: 'not_found' });
      await editNote(writer, asset.id, note.id, 'Back?').expect(404);
      expect(await streamTypes(`asset-notes-${asset.id}`)).toEqual(['NoteAdded', 'NoteEdited', 'NoteDeleted']);
    });

    it('lists notes newest first', async () => {
      const asset = await sharedAsset();
      const added: Note[] = [];
      for (const [i, caller] of [owner, writer, manager, owner, writer].entries()) {
        added.push((await addNote(caller, asset.id, `note ${i}`).expect(201)).body as Note);
        await pause(2);
      }
      const listed = await listNotes(writer, asset.id);
      expect(listed.map((n) => n.content)).toEqual(['note 4', 'note 3', 'note 2', 'note 1', 'note 0']);
      expect(listed).toEqual([...added].reverse());
      // Editing does not move a note.
      await editNote(owner, asset.id, added[0]?.id ?? '', 'note 0, edited').expect(200);
      expect((await listNotes(writer, asset.id)).map((n) => n.content)).toEqual(['note 4', 'note 3', 'note 2', 'note 1', 'note 0, edited']);
    });

    it('answers 404 for a note that is unknown, of another asset, or not a UUID', async () => {
      const asset = await sharedAsset();
      const elsewhere = await sharedAsset('Elsewhere');
      const there = (await addNote(owner, elsewhere.id, 'over there').expect(201)).body as Note;
      for (const noteId of [randomUUID(), there.id, 'not-a-uuid']) {
        await editNote(owner, asset.id, noteId, 'x').expect(404);
        await deleteNote(owner, asset.id, noteId).expect(404);
      }
      // Unknown and foreign ids get the same answer.
      const unknown = await editNote(owner, asset.id, randomUUID(), 'x');
      const foreign = await editNote(owner, asset.id, there.id, 'x');
      expect(foreign.body).toEqual(unknown.body);
      expect(await listNotes(owner, elsewhere.id)).toEqual([there]);
    });

    it('lets only the author, who manages the asset, and system administrators change or delete a note', async () => {
      const asset = await sharedAsset();
      const byOwner = (await addNote(owner, asset.id, 'by the owner').expect(201)).body as Note;
      const byWriter = (await addNote(writer, asset.id, 'by the writer').expect(201)).body as Note;

      // The writer holds WRITE_NOTES but not MANAGE: someone else's note is out of reach.
      const refused = await editNote(writer, asset.id, byOwner.id, 'taken over').expect(403);
      expect(refused.body).toEqual({ status: 403, code: 'permission_denied', detail: expect.any(String) });
      await deleteNote(writer, asset.id, byOwner.id).expect(403);
      // The reader lacks WRITE_NOTES altogether.
      await editNote(reader, asset.id, byWriter.id, 'x').expect(403);
      await deleteNote(reader, asset.id, byWriter.id).expect(403);

      // MANAGE moderates: the manager and the owner change the writer's note; so does a system administrator.
      expect((await editNote(manager, asset.id, byWriter.id, 'moderated').expect(200)).body).toMatchObject({ content: 'moderated', author_id: writer.id });
      expect((await editNote(owner, asset.id, byWriter.id, 'moderated again').expect(200)).body).toMatchObject({ content: 'moderated again', author_id: writer.id });
      expect((await editNote(systemAdmin, asset.id, byOwner.id, 'by the admin').expect(200)).body).toMatchObject({ content: 'by the admin', author_id: owner.id });
      await deleteNote(manager, asset.id, byOwner.id).expect(204);
      await deleteNote(systemAdmin, asset.id, byWriter.id).expect(204);
      expect(await listNotes(owner, asset.id)).toEqual([]);

      // The author who lost WRITE_NOTES can no longer change their own note.
      const mine = (await addNote(writer, asset.id, 'mine').expect(201)).body as Note;
      await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: writer.id, flags: READ | READ_NOTES }]);
      await editNote(writer, asset.id, mine.id, 'still mine?').expect(403);
      await deleteNote(writer, asset.id, mine.id).expect(403);
    });

    it('keeps content to 1..10,000 characters, not blank: 400 naming content', async () => {
      const asset = await sharedAsset();
      const note = (await addNote(owner, asset.id, 'kept').expect(201)).body as Note;
      const events = await eventCount();
      for (const content of ['', '   ', '\n\t ', 'x'.repeat(10_001), undefined, 42, null]) {
        for (const res of [await addNote(owner, asset.id, content), await editNote(owner, asset.id, note.id, content)]) {
          expect(res.status, JSON.stringify(content)?.slice(0, 20)).toBe(400);
          expect(res.body).toMatchObject({ status: 400, code: expect.any(String), errors: { content: [expect.any(String)] } });
          expect(Object.keys(res.body.errors as object)).toEqual(['content']);
        }
      }
      await write().post(notesPath(asset.id)).set(bearer(owner)).send({}).expect(400);
      expect(await eventCount()).toBe(events);
      expect((await addNote(owner, asset.id, 'y'.repeat(10_000)).expect(201)).body).toMatchObject({ content: 'y'.repeat(10_000) });
      expect((await editNote(owner, asset.id, note.id, 'z').expect(200)).body).toMatchObject({ content: 'z' });
      // The form content type carries the same body.
      expect((await write().post(notesPath(asset.id)).set(bearer(owner)).type('form').send({ content: 'from a form' }).expect(201)).body).toMatchObject({ content: 'from a form' });
    });
  });

  describe('the markdown note', () => {
    it('goes absent → present (201, author the caller) → present (200, content only) → absent (204), as interface 3 says', async () => {
      const asset = await sharedAsset();
      expect((await getMarkdown(owner, asset.id).expect(404)).body).toMatchObject({ status: 404, code: 'not_found' });
      await deleteMarkdown(owner, asset.id).expect(404);

      const created = await putMarkdown(writer, asset.id, '# Readme\n\nFirst.').expect(201);
      const note = created.body as MarkdownNote;
      expect(note).toEqual({ asset_id: asset.id, content: '# Readme\n\nFirst.', author_id: writer.id, created_at: expect.stringMatching(isoTime), updated_at: note.created_at });
      expect(created.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+(\.[0-9a-z]+)?$/);
      expect((await getMarkdown(reader, asset.id).expect(200)).body).toEqual(note);

      // Another caller updates it: only the content and updated_at change.
      await pause(5);
      const updated = (await putMarkdown(manager, asset.id, '# Readme\n\nSecond.').expect(200)).body as MarkdownNote;
      expect(updated).toEqual({ ...note, content: '# Readme\n\nSecond.', updated_at: expect.stringMatching(isoTime) });
      expect(updated.updated_at > note.updated_at).toBe(true);
      expect((await getMarkdown(reader, asset.id).expect(200)).body).toEqual(updated);

      // The same content again: 200, the note as it is, nothing recorded.
      const events = await eventCount();
      expect((await putMarkdown(owner, asset.id, '# Readme\n\nSecond.').expect(200)).body).toEqual(updated);
      expect(await eventCount()).toBe(events);

      const deleted = await deleteMarkdown(manager, asset.id).expect(204);
      expect(deleted.text).toBe('');
      await getMarkdown(owner, asset.id).expect(404);
      await deleteMarkdown(manager, asset.id).expect(404);

      // Absent again: the next PUT creates it anew, with its caller as the author.
      const again = (await putMarkdown(owner, asset.id, 'Anew').expect(201)).body as MarkdownNote;
      expect(again).toMatchObject({ content: 'Anew', author_id: owner.id });
      expect(again.created_at > note.created_at).toBe(true);
      expect(await streamTypes(`asset-markdown-note-${asset.id}`)).toEqual(['MarkdownNoteCreated', 'MarkdownNoteUpdated', 'MarkdownNoteDeleted', 'MarkdownNoteCreated']);
    });

    it('creates exactly once when the first PUTs race: one 201, the others 200', async () => {
      const asset = await sharedAsset();
      const racers = [owner, writer, manager, systemAdmin, owner, writer, manager, systemAdmin];
      const answers = await Promise.all(racers.map((caller, i) => putMarkdown(caller, asset.id, `# Version ${i}`)));
      const statuses = answers.map((r) => r.status);
      expect(
        statuses.toSorted((a, b) => a - b),
        JSON.stringify(answers.map((r) => r.body)),
      ).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      const winner = statuses.indexOf(201);
      const types = await streamTypes(`asset-markdown-note-${asset.id}`);
      expect(types.filter((t) => t === 'MarkdownNoteCreated')).toHaveLength(1);
      expect(types[0]).toBe('MarkdownNoteCreated');
      // Every answer names the creator of the race as the author, and the note ends as the last write left it.
      for (const res of answers) expect(res.body).toMatchObject({ asset_id: asset.id, author_id: racers[winner]?.id });
      const final = (await getMarkdown(owner, asset.id).expect(200)).body as MarkdownNote;
      expect(final.author_id).toBe(racers[winner]?.id);
      expect(answers.map((r) => (r.body as MarkdownNote).content)).toContain(final.content);
      const last = (await h.resources.eventStore.readStream(`asset-markdown-note-${asset.id}`)).events.at(-1);
      expect((last?.data as { content: string }).content).toBe(final.content);
    });

    it('keeps content to 1..100,000 characters, not blank: 400 naming content', async () => {
      const asset = await sharedAsset();
      for (const content of ['', '  \n ', 'x'.repeat(100_001), undefined, 7]) {
        const res = await putMarkdown(owner, asset.id, content);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ status: 400, errors: { content: [expect.any(String)] } });
      }
      await getMarkdown(owner, asset.id).expect(404);
      await putMarkdown(owner, asset.id, 'x'.repeat(100_000)).expect(201);
      const present = await putMarkdown(owner, asset.id, '');
      expect([present.status, Object.keys(present.body.errors as object)]).toEqual([400, ['content']]);
      expect(((await getMarkdown(owner, asset.id).expect(200)).body as MarkdownNote).content).toHaveLength(100_000);
    });

    it('renders ?format=html safely: raw HTML escaped, javascript: links dropped', async () => {
      const asset = await sharedAsset();
      const source = [
        '# Title',
        '',
        'Some *emphasis* and [a link](https://example.org/a).',
        '',
        '<script>alert("x")</script>',
        '',
        '<img src=x onerror="alert(1)">',
        '',
        '[click me](javascript:alert(1)) and [again](JAVASCRIPT:alert(2)) and [vb](vbscript:msgbox) and <javascript:alert(3)>',
        '',
        '![pic](javascript:alert(4))',
      ].join('\n');
      await putMarkdown(owner, asset.id, source).expect(201);

      const plain = (await getMarkdown(reader, asset.id).expect(200)).body as MarkdownNote;
      expect(plain.content).toBe(source);
      expect(plain).not.toHaveProperty('html');
      expect((await getMarkdown(reader, asset.id, '?format=json').expect(200)).body).toEqual(plain);

      const res = await getMarkdown(reader, asset.id, '?format=html').expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const { html, ...rest } = res.body as MarkdownNote;
      expect(rest).toEqual(plain);
      expect(html).toContain('<h1>Title</h1>');
      expect(html).toContain('<em>emphasis</em>');
      expect(html).toContain('<a href="https://example.org/a">a link</a>');
      expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
      expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
      expect(html).not.toMatch(/<script/i);
      expect(html).not.toMatch(/<img[^>]*onerror/i);
      expect(html).not.toMatch(/(href|src)="\s*(javascript|vbscript):/i);
      expect(html).not.toMatch(/<a [^>]*>[^<]*click me/);
      expect(html).toContain('[click me](javascript:alert(1))');

      await getMarkdown(reader, asset.id, '?format=xml').expect(400);
    });
  });

  it('keeps notes and the markdown note writable while the asset is locked', async () => {
    const asset = await sharedAsset('Frozen');
    const before = (await addNote(writer, asset.id, 'before the lock').expect(201)).body as Note;
    await write().post(`/api/assets/${asset.id}/lock/`).set(bearer(owner)).send({ locked: true, reason: 'review' }).expect(200);
    // Locked indeed: the asset's fields refuse.
    await write().patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ title: 'x' }).expect(423);

    const during = (await addNote(writer, asset.id, 'during the lock').expect(201)).body as Note;
    await editNote(writer, asset.id, before.id, 'edited during the lock').expect(200);
    await editNote(manager, asset.id, during.id, 'moderated during the lock').expect(200);
    await deleteNote(writer, asset.id, before.id).expect(204);
    await putMarkdown(writer, asset.id, 'Locked readme').expect(201);
    await putMarkdown(manager, asset.id, 'Locked readme, updated').expect(200);
    expect((await getMarkdown(reader, asset.id).expect(200)).body).toMatchObject({ content: 'Locked readme, updated', author_id: writer.id });
    await deleteMarkdown(writer, asset.id).expect(204);
    expect((await listNotes(reader, asset.id)).map((n) => n.content)).toEqual(['moderated during the lock']);
  });

  it('answers a hidden asset like a missing one on every route, and 401 to anonymous callers', async () => {
    const asset = await sharedAsset('Hidden');
    const stranger = await h.createUser();
    const note = (await addNote(owner, asset.id, 'secret').expect(201)).body as Note;
    await putMarkdown(owner, asset.id, 'secret readme').expect(201);
    const unknown = randomUUID();
    const calls: [string, (id: string, auth: Record<string, string>) => request.Test][] = [
      ['GET notes', (id, a) => read().get(notesPath(id)).set(a)],
      ['POST notes', (id, a) => write().post(notesPath(id)).set(a).send({ content: 'x' })],
      ['PATCH note', (id, a) => write().patch(notePath(id, note.id)).set(a).send({ content: 'x' })],
      ['DELETE note', (id, a) => write().delete(notePath(id, note.id)).set(a)],
      ['GET markdown', (id, a) => read().get(markdownPath(id)).set(a)],
      ['PUT markdown', (id, a) => write().put(markdownPath(id)).set(a).send({ content: 'x' })],
      ['DELETE markdown', (id, a) => write().delete(markdownPath(id)).set(a)],
    ];
    for (const [label, call] of calls) {
      const hidden = await call(asset.id, bearer(stranger));
      const missing = await call(unknown, bearer(stranger));
      expect([hidden.status, hidden.text], label).toEqual([404, missing.text]);
      const anonymous = await call(asset.id, {});
      expect(anonymous.status, label).toBe(401);
      expect(anonymous.headers['www-authenticate'], label).toMatch(/^Bearer/);
    }
    expect(await listNotes(owner, asset.id)).toEqual([note]);
    expect((await getMarkdown(owner, asset.id).expect(200)).body).toMatchObject({ content: 'secret readme' });
  });

  it('removes the notes and the markdown note of a deleted asset', async () => {
    const asset = await sharedAsset('Doomed');
    await addNote(owner, asset.id, 'a note').expect(201);
    await putMarkdown(owner, asset.id, 'a readme').expect(201);
    await write().delete(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(204);
    await read().get(notesPath(asset.id)).set(bearer(owner)).expect(404);
    const rows = await h.resources.pool.query<{ n: string }>(
      'select (select count(*) from asset_notes where asset_id = $1) + (select count(*) from asset_markdown_notes where asset_id = $1) as n',
      [asset.id],
    );
    expect(Number(rows.rows[0]?.n)).toBe(0);
  });

  // Last: every test above left rows (and deletions) behind.
  it('rebuilds the notes and markdown notes to the same rows', async () => {
    const snapshot = async () => [
      (await h.resources.pool.query('select * from asset_notes order by id')).rows,
      (await h.resources.pool.query('select * from asset_markdown_notes order by asset_id')).rows,
    ];
    const before = await snapshot();
    expect(before[0]?.length).toBeGreaterThan(5);
    expect(before[1]?.length).toBeGreaterThan(3);
    await projectionsRebuild(h.resources, ['asset-notes']);
    expect(await snapshot()).toEqual(before);
  });
});
