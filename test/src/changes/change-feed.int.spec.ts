import type { Change } from '@cairn/contract';
import { changeEventTypes, readChanges } from '@cairn/query-api';
import { decodePosition } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions } from '../assets/assets-fixtures.ts';
import { attachAssets, createCollection, moveCollection, setCollectionPermissions } from '../collections/collections-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { logSettled } from './log-horizon.ts';

// Issue 28: GET /api/changes/ as pages of JSON (docs/changes.md).

const READ = 1;
const READ_NOTES = 16;

type Page = { changes: Change[]; next: string; has_more: boolean };

let h: Harness;
let owner: User;
let reader: User;
let stranger: User;

const feed = async (caller: User, query = ''): Promise<Page> => {
  await logSettled(h.resources.eventStore, 120_000);
  const res = await request(h.queryApp).get(`/api/changes/${query}`).set(bearer(caller));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  return res.body as Page;
};

/** Every change the caller sees, following `next` to the end. */
const everyChange = async (caller: User, query = ''): Promise<Change[]> => {
  const seen: Change[] = [];
  let after = '';
  for (let n = 0; n < 100; n += 1) {
    const page = await feed(caller, `?limit=50${query}${after ? `&after=${after}` : ''}`);
    seen.push(...page.changes);
    if (!page.has_more) return seen;
    after = page.next;
  }
  throw new Error('the feed never ended');
};

const summary = (changes: readonly Change[]) => changes.map((c) => `${c.kind} ${c.action}`);

beforeAll(async () => {
  h = await startHarness('all');
  owner = await h.createUser();
  reader = await h.createUser();
  stranger = await h.createUser();
});
afterAll(async () => {
  await h.close();
});

// The feed reads below the cluster's oldest running transaction (docs/event-store.md): other
// tests' long statements can hold it back for a while, so each wait for the log is long.
describe('the change feed', { timeout: 300_000 }, () => {
  it('answers the caller’s changes in log order, each with its position and fields, and resumes after a position', async () => {
    const asset = await createAsset(h, owner, { title: 'Feed one', tags: ['a'] });
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ title: 'Feed one, renamed' }).expect(200);
    await request(h.commandApp).post(`/api/assets/${asset.id}/notes/`).set(bearer(owner)).send({ content: 'a note' }).expect(201);
    await request(h.commandApp).put(`/api/assets/${asset.id}/markdown-note/`).set(bearer(owner)).send({ content: '# md' }).expect(201);
    await request(h.commandApp).post(`/api/assets/${asset.id}/lock/`).set(bearer(owner)).send({ locked: true, reason: 'frozen' }).expect(200);

    const changes = await everyChange(owner, `&asset_id=${asset.id}`);
    expect(summary(changes)).toEqual(['asset created', 'asset updated', 'note created', 'markdown_note created', 'asset updated']);
    const [created, updated, note, markdown, locked] = changes;
    expect(created).toMatchObject({ kind: 'asset', id: asset.id, asset_id: asset.id, fields: { title: 'Feed one', tags: ['a'], owner_type: 'user', owner_id: owner.id, collection_ids: [] } });
    expect(updated?.fields).toEqual({ title: 'Feed one, renamed' });
    expect(note).toMatchObject({ kind: 'note', asset_id: asset.id, fields: { content: 'a note', author_id: owner.id } });
    expect(markdown).toMatchObject({ kind: 'markdown_note', id: asset.id, fields: { content: '# md' } });
    expect(locked?.fields).toEqual({ is_locked: true, locked_by: owner.id, lock_reason: 'frozen' });
    for (const change of changes) expect(change.occurred_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    // Strictly increasing positions; resuming after one answers exactly what follows it.
    const positions = changes.map((c) => decodePosition(c.position));
    expect(positions.every((p) => p !== null)).toBe(true);
    const rest = await feed(owner, `?asset_id=${asset.id}&after=${created?.position ?? ''}`);
    expect(rest.changes.map((c) => c.position)).toEqual(changes.slice(1).map((c) => c.position));
    expect(rest.has_more).toBe(false);
    // Nothing after the end; `next` is where the next page starts.
    const end = await feed(owner, `?asset_id=${asset.id}&after=${rest.next}`);
    expect(end.changes).toEqual([]);

    // An X-Consistency-Token is a position too: the changes after one's own write.
    const write = await request(h.commandApp).post(`/api/assets/${asset.id}/lock/`).set(bearer(owner)).send({ locked: false }).expect(200);
    const token = String(write.headers['x-consistency-token']);
    const before = await feed(owner, `?asset_id=${asset.id}&after=${rest.next}`);
    expect(before.changes.map((c) => c.fields)).toEqual([{ is_locked: false, locked_by: null, lock_reason: '' }]);
    // The token also carries the commit's WAL position (for standbys, docs/consistency.md); its log position is the change's.
    expect(before.changes[0]?.position).toBe(token.split('.').slice(0, 2).join('.'));
    expect((await feed(owner, `?asset_id=${asset.id}&after=${token}`)).changes).toEqual([]);
  });

  it('pages with `limit`, and `next` moves past what was scanned even when the page is empty', async () => {
    const asset = await createAsset(h, owner, { title: 'Paged' });
    for (let n = 0; n < 4; n += 1) await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ description: `v${n}` }).expect(200);
    const first = await feed(owner, `?asset_id=${asset.id}&limit=2`);
    expect(first.changes).toHaveLength(2);
    expect(first.has_more).toBe(true);
    expect(first.next).toBe(first.changes[1]?.position);
    const second = await feed(owner, `?asset_id=${asset.id}&limit=2&after=${first.next}`);
    expect(second.changes.map((c) => c.fields)).toEqual([{ description: 'v1' }, { description: 'v2' }]);

    // The stranger sees none of it, yet the feed moves on: resuming from `next` scans nothing twice.
    const empty = await feed(stranger, "?kinds=asset,note,content,relationship,markdown_note");
    expect(empty.changes).toEqual([]);
    expect(empty.has_more).toBe(false);
    const head = decodePosition(empty.next);
    const last = decodePosition((await feed(owner, `?asset_id=${asset.id}&after=${second.next}`)).changes.at(-1)?.position ?? '');
    expect(head && last && (head.major > last.major || (head.major === last.major && head.minor >= last.minor))).toBe(true);

    // A scan bound per call: a caller who sees little never walks the whole log in one request.
    await logSettled(h.resources.eventStore, 120_000);
    const bounded = await readChanges({ db: h.resources.db, eventStore: h.resources.eventStore }, { caller: { userId: stranger.id, isSystemAdmin: false }, limit: 10, scanLimit: 3, filters: { kinds: ['asset'] } });
    expect(bounded.changes).toEqual([]);
    expect(bounded.hasMore).toBe(true);
    const scanned = await h.resources.eventStore.readLog({ major: 0n, minor: 0n }, 3, changeEventTypes);
    expect(bounded.next).toEqual(scanned.events[2]?.position);
  });

  it('sends a change only to a caller who may see the resource when it is delivered, with only the fields they may read', async () => {
    const asset = await createAsset(h, owner, { title: 'Shared later' });
    await request(h.commandApp).post(`/api/assets/${asset.id}/notes/`).set(bearer(owner)).send({ content: 'private note' }).expect(201);
    expect(await everyChange(reader, `&asset_id=${asset.id}`)).toEqual([]);

    // READ_METADATA alone: the asset's changes, its history included, but not its notes.
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    expect(summary(await everyChange(reader, `&asset_id=${asset.id}`))).toEqual(['asset created', 'asset access_changed']);
    // READ_NOTES as well: the note arrives.
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ | READ_NOTES }]);
    expect(summary(await everyChange(reader, `&asset_id=${asset.id}`))).toEqual(['asset created', 'note created', 'asset access_changed', 'asset access_changed']);

    // Revoked: nothing of it flows any more, old or new.
    await setPermissions(h, owner, asset.id, []);
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ title: 'Private again' }).expect(200);
    expect(await everyChange(reader, `&asset_id=${asset.id}`)).toEqual([]);
    expect(summary(await everyChange(owner, `&asset_id=${asset.id}`))).toHaveLength(6);
  });

  it('sends a deletion to those who could see the resource just before it, and nothing else of it', async () => {
    const asset = await createAsset(h, owner, { title: 'Doomed' });
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ title: 'Doomed, renamed' }).expect(200);
    await request(h.commandApp).delete(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(204);

    for (const caller of [owner, reader]) {
      const changes = await everyChange(caller, `&asset_id=${asset.id}`);
      expect(changes.map((c) => ({ kind: c.kind, id: c.id, action: c.action, fields: c.fields }))).toEqual([{ kind: 'asset', id: asset.id, action: 'deleted', fields: {} }]);
    }
    expect(await everyChange(stranger, `&asset_id=${asset.id}`)).toEqual([]);

    // A collection's deletion likewise, to those who could see the collection.
    const collection = await createCollection(h, owner, { title: 'Doomed collection' });
    await setCollectionPermissions(h, owner, collection.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    await request(h.commandApp).delete(`/api/collections/${collection.id}/`).set(bearer(owner)).expect(204);
    const seen = (await everyChange(reader, '&kinds=collection')).filter((c) => c.id === collection.id);
    expect(summary(seen)).toEqual(['collection deleted']);
    expect((await everyChange(stranger, '&kinds=collection')).filter((c) => c.id === collection.id)).toEqual([]);
  });

  it('tells neither the addition nor the removal of a relationship whose target the caller may not see', async () => {
    const shared = await createAsset(h, owner, { title: 'Shared source' });
    const hiddenTarget = await createAsset(h, owner, { title: 'Hidden target' });
    const seenTarget = await createAsset(h, owner, { title: 'Seen target' });
    await setPermissions(h, owner, shared.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    await setPermissions(h, owner, seenTarget.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    const link = async (to: string) => {
      const res = await request(h.commandApp).post(`/api/assets/${shared.id}/relationships/`).set(bearer(owner)).send({ to_asset_id: to, relationship_type: 'References' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      await request(h.commandApp).delete(`/api/assets/${shared.id}/relationships/${String(res.body.id)}/`).set(bearer(owner)).expect(204);
      return String(res.body.id);
    };
    const hiddenLink = await link(hiddenTarget.id);
    const seenLink = await link(seenTarget.id);
    const relationships = (await everyChange(reader, `&asset_id=${shared.id}&kinds=relationship`)).map((c) => `${c.action} ${c.id}`);
    // Its listing never showed the hidden link (asset-relationships.read.ts): its removal does not tell of it either.
    expect(relationships).toEqual([`created ${seenLink}`, `deleted ${seenLink}`]);
    expect(summary(await everyChange(owner, `&asset_id=${shared.id}&kinds=relationship`))).toEqual(['relationship created', 'relationship deleted', 'relationship created', 'relationship deleted']);
    expect(hiddenLink).not.toBe(seenLink);
  });

  it('filters by a collection’s subtree, by asset and by kind; a hidden subtree gives nothing', async () => {
    const top = await createCollection(h, owner, { title: 'Top' });
    const child = await createCollection(h, owner, { title: 'Child', parent_id: top.id });
    const other = await createCollection(h, owner, { title: 'Elsewhere' });
    const inside = await createAsset(h, owner, { title: 'Inside' });
    const outside = await createAsset(h, owner, { title: 'Outside' });
    await attachAssets(h, owner, child.id, [inside.id]);
    await attachAssets(h, owner, other.id, [outside.id]);
    await request(h.commandApp).post(`/api/assets/${inside.id}/notes/`).set(bearer(owner)).send({ content: 'inside note' }).expect(201);

    const subtree = await everyChange(owner, `&collection_id=${top.id}`);
    // The asset's changes from before it entered count: it is in the subtree now.
    expect(subtree.map((c) => `${c.kind} ${c.action} ${c.id}`)).toEqual([
      `collection created ${top.id}`,
      `collection created ${child.id}`,
      `asset created ${inside.id}`,
      `asset access_changed ${inside.id}`,
      `note created ${subtree.find((c) => c.kind === 'note')?.id ?? ''}`,
    ]);
    expect(subtree.find((c) => c.action === 'access_changed')?.fields).toEqual({ collection_ids: [child.id] });
    const notesOnly = await everyChange(owner, `&collection_id=${top.id}&kinds=note,collection`);
    expect(summary(notesOnly)).toEqual(['collection created', 'collection created', 'note created']);
    expect(summary(await everyChange(owner, `&asset_id=${outside.id}`))).toEqual(['asset created', 'asset access_changed']);

    // Moved under `top`: `other` and what it holds enter the subtree.
    await moveCollection(h, owner, other.id, top.id);
    const after = await everyChange(owner, `&collection_id=${top.id}&kinds=collection`);
    expect(after.map((c) => `${c.action} ${c.id}`)).toEqual([`created ${top.id}`, `created ${child.id}`, `created ${other.id}`, `access_changed ${other.id}`]);
    expect(after.at(-1)?.fields).toEqual({ parent_id: top.id });

    // The reader may see the child only: the top is hidden, so its subtree gives nothing, and the child's parent is not told.
    await setCollectionPermissions(h, owner, child.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    expect(await everyChange(reader, `&collection_id=${top.id}`)).toEqual([]);
    const childSeen = await everyChange(reader, `&collection_id=${child.id}&kinds=collection`);
    expect(childSeen.map((c) => `${c.action} ${c.id}`)).toEqual([`created ${child.id}`, `access_changed ${child.id}`]);
    expect(childSeen[0]?.fields).toMatchObject({ title: 'Child', parent_id: null });
  });

  it('is in the OpenAPI document with both media types', async () => {
    const res = await request(h.queryApp).get('/api/schema/').expect(200);
    const operation = (res.body as { paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, unknown> }> } }> }).paths['/api/changes/']?.get;
    expect(Object.keys(operation?.responses['200']?.content ?? {})).toEqual(['application/json', 'text/event-stream']);
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429', '503']));
  });

  it('refuses what it cannot read: 400 in the error shape, 401 without credentials', async () => {
    for (const query of ['?after=nonsense', '?after=1.2.3.4', '?kinds=asset,bogus', '?asset_id=not-a-uuid', '?collection_id=12', '?limit=abc']) {
      const res = await request(h.queryApp).get(`/api/changes/${query}`).set(bearer(owner));
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
      expect(Object.keys(res.body.errors as object).length).toBe(1);
    }
    const stream = await request(h.queryApp).get('/api/changes/').set(bearer(owner)).set('Accept', 'text/event-stream').set('Last-Event-ID', 'garbage');
    expect(stream.status).toBe(400);
    expect(stream.body).toMatchObject({ code: 'validation_error', errors: { 'Last-Event-ID': [expect.any(String)] } });
    // Parts no log can hold (the database refuses them), and a position past the log's head:
    // 400 on the field that carried it, never a 500, and never a stream left waiting silently.
    for (const [query, field] of [['?after=zzzzzzzzzzzzzz.0', 'after'], ['?after=1.zzzzzzzzzzzzzz', 'after'], ['?after=zzzzzzzz.0', 'after']] as const) {
      const res = await request(h.queryApp).get(`/api/changes/${query}`).set(bearer(owner));
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ status: 400, code: 'validation_error', errors: { [field]: [expect.any(String)] } });
    }
    for (const forged of ['zzzzzzzz.0', 'zzzzzzzzzzzzzz.0']) {
      const res = await request(h.queryApp).get('/api/changes/').set(bearer(owner)).set('Accept', 'text/event-stream').set('Last-Event-ID', forged).timeout(10_000);
      expect(res.status, forged).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_error', errors: { 'Last-Event-ID': [expect.any(String)] } });
    }
    // The head itself, and where an empty page scanned to, are positions the feed gave.
    const scanned = await feed(stranger, '?kinds=collection');
    expect((await request(h.queryApp).get(`/api/changes/?after=${scanned.next}`).set(bearer(stranger))).status).toBe(200);
    const anonymous = await request(h.queryApp).get('/api/changes/');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});
