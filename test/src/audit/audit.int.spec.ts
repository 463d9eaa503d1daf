import { readFile, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { auditAsOf, auditExport, auditLog, auditVerify, PrintedOutput, ReportedFailure } from '@cairn/cli';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { eventually } from '../storage/storage-fixtures.ts';

type Entry = { type: string; stream_id: string; actor_id: string | null; request_id: string | null; position: string; changes: Record<string, { before: unknown; after: unknown }> };

let h: Harness;
let admin: User;
let alice: User;
let bob: User;
let assetId: string;
let beforeLock: Date;
let titleThen: string;

const lines = (output: unknown): Entry[] => {
  expect(output).toBeInstanceOf(PrintedOutput);
  return (output as PrintedOutput).text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Entry);
};
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

beforeAll(async () => {
  h = await startHarness('all');
  admin = await h.createUser({ admin: true });
  alice = await h.createUser();
  bob = await h.createUser();
  const asset = await createAsset(h, alice, { title: 'First title', tags: ['a'] });
  assetId = asset.id;
  await pause();
  await request(h.commandApp).patch(`/api/assets/${assetId}/`).set(bearer(alice)).set('X-Request-Id', 'req-title').send({ title: 'Second title', tags: ['a', 'b'] }).expect(200);
  await setPermissions(h, alice, assetId, [{ subject_type: 'user', subject_id: bob.id, flags: 1 | 16 | 32 }]);
  await request(h.commandApp).post(`/api/assets/${assetId}/notes/`).set(bearer(bob)).send({ content: 'a note by bob' }).expect(201);
  await pause();
  titleThen = (await request(h.queryApp).get(`/api/assets/${assetId}/`).set(bearer(alice))).body.title as string;
  beforeLock = new Date();
  await pause();
  await request(h.commandApp).post(`/api/assets/${assetId}/lock/`).set(bearer(alice)).send({ locked: true, reason: 'frozen' }).expect(200);
  // An actor's history and the export read the log below the server's oldest open
  // transaction (so that a page never misses an event committed later); another test's open
  // transaction on the shared server (a large seeding insert, say) can hold that back for a
  // while. Wait until every event written above is below it.
  await eventually(async () => {
    const { rows } = await h.resources.pool.query<{ below: boolean }>(
      'select pg_snapshot_xmin(pg_current_snapshot()) > (select max(transaction_id) from events) as below',
    );
    return rows[0]?.below === true;
  }, 60_000);
});
afterAll(async () => {
  await h.close();
});

describe('cairn audit log', () => {
  it('lists one entity’s events in order, with who, the request and a field diff', async () => {
    const entries = lines(await auditLog(h.resources, ['--entity', assetId, '--json']));
    expect(entries.map((e) => e.type)).toEqual(['AssetCreated', 'AssetUpdated', 'AssetPermissionsSet', 'NoteAdded', 'AssetLocked']);
    const updated = entries[1];
    expect(updated).toMatchObject({ actor_id: alice.id, request_id: 'req-title', stream_id: `asset-${assetId}` });
    expect(updated?.changes['title']).toEqual({ before: 'First title', after: 'Second title' });
    expect(updated?.changes['tags']).toEqual({ before: ['a'], after: ['a', 'b'] });
    expect(entries[3]).toMatchObject({ actor_id: bob.id, stream_id: `asset-notes-${assetId}` });
    expect(entries[4]?.changes['reason']).toEqual({ before: null, after: 'frozen' });
  });

  it('filters by event type and by time, and lists one actor’s events', async () => {
    const locked = lines(await auditLog(h.resources, ['--entity', assetId, '--type', 'AssetLocked,AssetUpdated', '--json']));
    expect(locked.map((e) => e.type)).toEqual(['AssetUpdated', 'AssetLocked']);
    const late = lines(await auditLog(h.resources, ['--entity', assetId, '--from', beforeLock.toISOString(), '--json']));
    expect(late.map((e) => e.type)).toEqual(['AssetLocked']);
    const bobs = lines(await auditLog(h.resources, ['--actor', bob.email, '--json']));
    expect(bobs.map((e) => e.type)).toEqual(['NoteAdded']);
    expect(bobs.every((e) => e.actor_id === bob.id)).toBe(true);
  });

  it('as-of folds the entity with the domain’s own code, equal to the read model then', async () => {
    const then = await auditAsOf(h.resources, ['--entity', assetId, '--at', beforeLock.toISOString()]);
    expect(then).toMatchObject({ kind: 'asset', stream_id: `asset-${assetId}`, version: 3 });
    const state = then.state as { status: string; details: { title: string; tags: string[] }; lock: unknown };
    expect(state.status).toBe('active');
    expect(state.details.title).toBe(titleThen);
    expect(state.lock).toBeNull();
    const now = (await auditAsOf(h.resources, ['--entity', assetId, '--at', new Date().toISOString()])).state as { lock: { reason: string } };
    expect(now.lock.reason).toBe('frozen');
  });
});

describe('cairn audit export and verify', () => {
  it('exports a hash chain that verifies, and names the first tampered line', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cairn-audit-'));
    const file = path.join(dir, 'log.jsonl');
    const summary = (await auditExport(h.resources, ['--out', file])) as { events: number; last_digest: string };
    expect(summary.events).toBeGreaterThan(5);
    expect(await auditVerify(h.resources, [file])).toEqual({ ok: true, lines: summary.events, last_digest: summary.last_digest });

    const text = (await readFile(file, 'utf8')).trim().split('\n');
    const third = JSON.parse(text[2] ?? '{}') as { data: Record<string, unknown> };
    third.data = { ...third.data, tampered: true };
    const tampered = path.join(dir, 'tampered.jsonl');
    await writeFile(tampered, [...text.slice(0, 2), JSON.stringify(third), ...text.slice(3)].join('\n'));
    const failure = await auditVerify(h.resources, [tampered]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ReportedFailure);
    expect((failure as ReportedFailure).result).toMatchObject({ ok: false, line: 3 });

    const dropped = path.join(dir, 'dropped.jsonl');
    await writeFile(dropped, [...text.slice(0, 4), ...text.slice(5)].join('\n'));
    const gap = await auditVerify(h.resources, [dropped]).catch((error: unknown) => error);
    expect((gap as ReportedFailure).result).toMatchObject({ ok: false, line: 5 });
  });
});

describe('GET /api/admin/audit/', () => {
  it('pages an entity’s history for system administrators', async () => {
    const first = await request(h.queryApp).get(`/api/admin/audit/?entity=${assetId}&limit=2`).set(bearer(admin));
    expect(first.status).toBe(200);
    expect(first.headers['x-page-limit']).toBe('2');
    expect(first.headers['x-has-more']).toBe('true');
    expect((first.body as Entry[]).map((e) => e.type)).toEqual(['AssetCreated', 'AssetUpdated']);
    const second = await request(h.queryApp).get(`/api/admin/audit/?entity=${assetId}&limit=10&cursor=${first.headers['x-next-cursor']}`).set(bearer(admin));
    expect((second.body as Entry[]).map((e) => e.type)).toEqual(['AssetPermissionsSet', 'NoteAdded', 'AssetLocked']);
    expect(second.headers['x-has-more']).toBe('false');
    expect(second.headers['x-next-cursor']).toBeUndefined();
    const byActor = await request(h.queryApp).get(`/api/admin/audit/?actor=${bob.id}`).set(bearer(admin));
    expect((byActor.body as Entry[]).map((e) => e.type)).toEqual(['NoteAdded']);
  });

  it('refuses others (403), both or neither of entity and actor (400), and a bad cursor (400)', async () => {
    expect((await request(h.queryApp).get(`/api/admin/audit/?entity=${assetId}`).set(bearer(alice))).status).toBe(403);
    expect((await request(h.queryApp).get(`/api/admin/audit/?entity=${assetId}`)).status).toBe(401);
    expect((await request(h.queryApp).get(`/api/admin/audit/?entity=${assetId}&actor=${bob.id}`).set(bearer(admin))).status).toBe(400);
    expect((await request(h.queryApp).get('/api/admin/audit/').set(bearer(admin))).status).toBe(400);
    expect((await request(h.queryApp).get(`/api/admin/audit/?entity=${assetId}&cursor=nonsense`).set(bearer(admin))).status).toBe(400);
  });
});
