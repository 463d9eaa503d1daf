import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Change } from '@cairn/contract';
import type { ChangeHub } from '@cairn/query-api';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions } from '../assets/assets-fixtures.ts';
import { attachAssets, createCollection } from '../collections/collections-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { serve, startHarness, type Harness } from '../support/harness.ts';
import { logSettled } from './log-horizon.ts';
import { openSse, type SseConnection } from './sse-client.ts';

// Issue 28: the change feed as Server-Sent Events (docs/changes.md).

// Followers read only events of transactions older than the oldest one still running in
// the cluster (docs/event-store.md): another test's long statement can hold changes back
// for a while, so waits are long, and every test may take a few of them.
const settleMs = 120_000;
const testMs = 300_000;

const READ = 1;

let h: Harness;
let server: Server;
let base: string;
let owner: User;
let reader: User;
const open: SseConnection[] = [];

const follow = async (caller: User, query = '', lastEventId?: string | null) => {
  const connection = await openSse(`${base}/api/changes/${query}`, caller.token, lastEventId);
  open.push(connection);
  return connection;
};
const hub = () => h.queryApp.locals['changeHub'] as ChangeHub;
const eventually = async (test: () => boolean, timeoutMs = settleMs) => {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};
const has = (id: string, action: string) => (changes: readonly Change[]) => changes.some((c) => c.id === id && c.action === action);

beforeAll(async () => {
  h = await startHarness('all', { CAIRN_CHANGES_HEARTBEAT_MS: '200', CAIRN_CHANGES_STREAMS_PER_CALLER: '2', CAIRN_CHANGES_POLL_MS: '200' });
  owner = await h.createUser();
  reader = await h.createUser();
  server = h.queryApp.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const connection of open) connection.close();
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

describe('the change feed as Server-Sent Events', { timeout: testMs }, () => {
  it('follows the log live: each change an event whose id is its position, heartbeats between', async () => {
    const stream = await follow(owner, '?kinds=asset');
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).toBe('no-store');
    const asset = await createAsset(h, owner, { title: 'Live' });
    await stream.waitFor(has(asset.id, 'created'));
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ title: 'Live, renamed' }).expect(200);
    await stream.waitFor(has(asset.id, 'updated'));
    const mine = stream.changes.filter((c) => c.id === asset.id);
    expect(mine.map((c) => c.fields['title'])).toEqual(['Live', 'Live, renamed']);
    await eventually(() => stream.heartbeats() >= 2);
    // The heartbeat's id is the position scanned to: at or past the last change.
    expect(stream.lastEventId()).toMatch(/^[0-9a-z]+\.[0-9a-z]+$/);
    stream.close();
  });

  it('resumes with Last-Event-ID: nothing missed, nothing repeated', async () => {
    const asset = await createAsset(h, owner, { title: 'Resumed' });
    const first = await follow(owner, `?asset_id=${asset.id}`);
    await first.waitFor(has(asset.id, 'created'));
    first.close();
    await first.ended;
    const resumeFrom = first.lastEventId();
    for (let n = 0; n < 3; n += 1) await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ description: `while away ${n}` }).expect(200);
    const second = await follow(owner, `?asset_id=${asset.id}`, resumeFrom);
    await second.waitFor((changes) => changes.length >= 3);
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ description: 'live again' }).expect(200);
    await second.waitFor((changes) => changes.length >= 4);
    const all = [...first.changes, ...second.changes];
    expect(all.map((c) => (c.action === 'created' ? 'created' : c.fields['description']))).toEqual(['created', 'while away 0', 'while away 1', 'while away 2', 'live again']);
    expect(new Set(all.map((c) => c.position)).size).toBe(all.length);
    second.close();
  });

  it('stops the flow at once when a grant is revoked, and lets it flow again when given', async () => {
    const asset = await createAsset(h, owner, { title: 'Granted and revoked' });
    const marker = await createAsset(h, owner, { title: 'Marker' });
    await setPermissions(h, owner, marker.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    const stream = await follow(reader, '?kinds=asset');
    await stream.waitFor(has(marker.id, 'access_changed'));
    expect(stream.changes.some((c) => c.id === asset.id)).toBe(false);

    // Granted mid-stream: the asset arrives as a change, then its changes flow.
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    await stream.waitFor(has(asset.id, 'access_changed'));
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ description: 'seen' }).expect(200);
    await stream.waitFor((changes) => changes.some((c) => c.id === asset.id && c.fields['description'] === 'seen'));

    // Revoked: the change after it is not sent, though a later change the reader may see is.
    await setPermissions(h, owner, asset.id, []);
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ description: 'not seen' }).expect(200);
    await request(h.commandApp).patch(`/api/assets/${marker.id}/`).set(bearer(owner)).send({ description: 'after the revocation' }).expect(200);
    await stream.waitFor((changes) => changes.some((c) => c.id === marker.id && c.fields['description'] === 'after the revocation'));
    expect(stream.changes.filter((c) => c.id === asset.id).map((c) => c.fields['description'] ?? c.action)).toEqual(['access_changed', 'seen']);

    // Given again: it flows again.
    await setPermissions(h, owner, asset.id, [{ subject_type: 'user', subject_id: reader.id, flags: READ }]);
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ description: 'seen again' }).expect(200);
    await stream.waitFor((changes) => changes.some((c) => c.id === asset.id && c.fields['description'] === 'seen again'));
    stream.close();
  });

  it('ends the stream of a user deactivated mid-stream, and narrows a demoted administrator’s at once', async () => {
    const root = await h.createUser({ admin: true });
    const demoted = await h.createUser({ admin: true });
    const leaving = await h.createUser();
    const marker = await createAsset(h, owner, { title: 'Seen by all three' });
    await setPermissions(h, owner, marker.id, [
      { subject_type: 'user', subject_id: leaving.id, flags: READ },
      { subject_type: 'user', subject_id: demoted.id, flags: READ },
    ]);
    const adminStream = await follow(demoted, '?kinds=asset');
    const leavingStream = await follow(leaving, '?kinds=asset');
    await adminStream.waitFor(has(marker.id, 'access_changed'));
    await leavingStream.waitFor(has(marker.id, 'access_changed'));
    const streamsBefore = hub().openStreams;

    // An administrator sees another's private asset; demoted, no longer, on the same stream.
    const before = await createAsset(h, owner, { title: 'Private, before' });
    await adminStream.waitFor(has(before.id, 'created'));
    await request(h.commandApp).patch(`/api/admin/users/${demoted.id}/`).set(bearer(root)).send({ is_system_admin: false }).expect(200);
    await request(h.commandApp).patch(`/api/admin/users/${leaving.id}/`).set(bearer(root)).send({ is_active: false }).expect(200);
    // Past the once-a-second reading of followers' standing.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await createAsset(h, owner, { title: 'Private, after' });
    await request(h.commandApp).patch(`/api/assets/${marker.id}/`).set(bearer(owner)).send({ description: 'after the demotion' }).expect(200);
    await adminStream.waitFor((changes) => changes.some((c) => c.id === marker.id && c.fields['description'] === 'after the demotion'));
    expect(adminStream.changes.some((c) => c.id === after.id)).toBe(false);

    // The deactivated user's stream ends, with nothing of what came after.
    await leavingStream.ended;
    expect(leavingStream.changes.some((c) => c.fields['description'] === 'after the demotion')).toBe(false);
    await eventually(() => hub().openStreams === streamsBefore - 1);
    adminStream.close();
  });

  it('ends the stream of a token revoked mid-stream, with nothing of what came after', async () => {
    const holder = await h.createUser();
    const asset = await createAsset(h, holder, { title: 'Followed until revoked' });
    const stream = await follow(holder, `?asset_id=${asset.id}`);
    await stream.waitFor(has(asset.id, 'created'));
    const streamsBefore = hub().openStreams;
    await request(h.commandApp).post('/oauth/revoke').type('form').send({ token: holder.token, client_id: 'cairn-cli' }).expect(200);
    // Past the auth cache's eviction and the once-a-second check of followers.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // A change the holder could see, made by an administrator: the next batch ends the stream before it is judged.
    const root = await h.createUser({ admin: true });
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(root)).send({ title: 'After the revocation' }).expect(200);
    await stream.ended;
    expect(stream.changes.map((c) => c.action)).toEqual(['created']);
    await eventually(() => hub().openStreams === streamsBefore - 1);
  });

  it('follows one collection’s subtree live', async () => {
    const top = await createCollection(h, owner, { title: 'Followed' });
    const stream = await follow(owner, `?collection_id=${top.id}`);
    await stream.waitFor(has(top.id, 'created'));
    const child = await createCollection(h, owner, { title: 'Followed child', parent_id: top.id });
    const inside = await createAsset(h, owner, { title: 'Inside, live' });
    const outside = await createAsset(h, owner, { title: 'Outside, live' });
    await attachAssets(h, owner, child.id, [inside.id]);
    await request(h.commandApp).patch(`/api/assets/${inside.id}/`).set(bearer(owner)).send({ description: 'inside' }).expect(200);
    await request(h.commandApp).patch(`/api/assets/${outside.id}/`).set(bearer(owner)).send({ description: 'outside' }).expect(200);
    await stream.waitFor((changes) => changes.some((c) => c.id === inside.id && c.fields['description'] === 'inside'));
    // Later than the last change followed: had the outside asset's changes been sent, they would be here.
    await logSettled(h.resources.eventStore, settleMs);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Its creation is judged when delivered (docs/changes.md): live, when it was in no collection, it enters by its
    // attachment; on a loaded machine the creation's batch may be judged after the attachment, and then it is sent too.
    const seen = stream.changes.map((c) => `${c.kind} ${c.action} ${c.id}`);
    expect(seen.filter((line) => line !== `asset created ${inside.id}`)).toEqual([
      `collection created ${top.id}`,
      `collection created ${child.id}`,
      `asset access_changed ${inside.id}`,
      `asset updated ${inside.id}`,
    ]);
    if (seen.includes(`asset created ${inside.id}`)) expect(seen.indexOf(`asset created ${inside.id}`)).toBe(2);
    expect(seen.some((line) => line.includes(outside.id))).toBe(false);
    stream.close();
  });

  it('bounds the streams of one caller (429), and gives a slot back when its client goes', async () => {
    const caller = await h.createUser();
    const a = await follow(caller);
    const b = await follow(caller);
    const refused = await follow(caller);
    expect(refused.status).toBe(429);
    await refused.ended;
    expect(JSON.parse(refused.text())).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    a.close();
    let again: SseConnection | null = null;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      again = await follow(caller);
      if (again.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(again?.status).toBe(200);
    again?.close();
    b.close();
  });

  it('ends every stream when clients go, and on shutdown', async () => {
    await logSettled(h.resources.eventStore, settleMs);
    for (const connection of open) connection.close();
    await eventually(() => hub().followerCount === 0 && hub().openStreams === 0);

    const running = await serve(h.resources, 'query', 0);
    const stream = await openSse(`${running.url ?? ''}/api/changes/`, owner.token);
    expect(stream.status).toBe(200);
    await eventually(() => stream.heartbeats() >= 1);
    const started = Date.now();
    await running.stop();
    await stream.ended;
    // Not the shutdown bound (10 s): the stream is ended at once.
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
