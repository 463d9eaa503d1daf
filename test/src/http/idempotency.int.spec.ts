import { createApp } from '@cairn/cli';
import { requestFingerprint, type EventStore } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/** The harness's store, except that appends commit and then fail, as a process killed before it answers would look to its client. */
function answerLost(store: EventStore): EventStore {
  return {
    ...store,
    appendToStream: async (streamId, events, options) => {
      await store.appendToStream(streamId, events, options);
      throw new Error('injected: the process died after the commit');
    },
  };
}

describe('Idempotency-Key on writes', () => {
  let h: Harness;
  let user: User;
  let other: User;
  const post = (caller: User, key: string, body: object, app = h.commandApp) => request(app).post('/api/assets/').set(bearer(caller)).set('Idempotency-Key', key).send(body);
  const createdEvents = async (title: string) =>
    Number((await h.resources.pool.query(`select count(*) from events where type = 'AssetCreated' and data ->> 'title' = $1`, [title])).rows[0].count);

  beforeAll(async () => {
    h = await startHarness('all');
    user = await h.createUser();
    other = await h.createUser();
  });
  afterAll(async () => h.close());

  it('replays the first answer to the same key and body, with its headers', async () => {
    const first = await post(user, 'key-1', { title: 'Once' }).expect(201);
    const again = await post(user, 'key-1', { title: 'Once' }).expect(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['location']).toBe(first.headers['location']);
    expect(again.headers['x-consistency-token']).toBe(first.headers['x-consistency-token']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await createdEvents('Once')).toBe(1);
    // Keys belong to their caller.
    const theirs = await post(other, 'key-1', { title: 'Once' }).expect(201);
    expect(theirs.body.id).not.toBe(first.body.id);
  });

  it('refuses the same key with another body (422) and a malformed key (400)', async () => {
    await post(user, 'key-2', { title: 'First body' }).expect(201);
    const reused = await post(user, 'key-2', { title: 'Second body' }).expect(422);
    expect(reused.body).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    const bad = await post(user, 'k'.repeat(256), { title: 'x' }).expect(400);
    expect(bad.body.code).toBe('invalid_idempotency_key');
    expect(await createdEvents('Second body')).toBe(0);
  });

  it('runs concurrent requests with one key once', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(user, 'key-3', { title: 'Concurrent' })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await createdEvents('Concurrent')).toBe(1);
  });

  it('answers a retry whose first attempt was stored but never answered, without a second write', async () => {
    const lost = await post(user, 'key-4', { title: 'Lost answer' }, createApp({ ...h.resources, eventStore: answerLost(h.resources.eventStore) }, 'command'));
    expect(lost.status).toBe(500);
    expect(await createdEvents('Lost answer')).toBe(1);
    const retry = await post(user, 'key-4', { title: 'Lost answer' }).expect(201);
    expect(retry.body.title).toBe('Lost answer');
    expect(await createdEvents('Lost answer')).toBe(1);
    const read = await request(h.queryApp).get(`/api/assets/${retry.body.id}/`).set(bearer(user)).expect(200);
    expect(read.body.id).toBe(retry.body.id);
  });

  it('takes over a key whose request died while running, reusing what it stored', async () => {
    const body = { title: 'Died running' };
    const lost = await post(user, 'key-5', body, createApp({ ...h.resources, eventStore: answerLost(h.resources.eventStore) }, 'command'));
    expect(lost.status).toBe(500);
    // As if the process had died before it could forget the attempt: an unfinished key, long started.
    await h.resources.pool.query(`insert into idempotency_keys (owner, key, fingerprint, started_at) values ($1, 'key-5', $2, now() - interval '5 minutes')`, [
      user.id,
      requestFingerprint('POST', '/api/assets/', { ...body, alias: '', description: '', record_type: '', tags: [], metadata: {} }),
    ]);
    const retry = await post(user, 'key-5', body).expect(201);
    expect(retry.body.title).toBe('Died running');
    expect(await createdEvents('Died running')).toBe(1);
  });
});
