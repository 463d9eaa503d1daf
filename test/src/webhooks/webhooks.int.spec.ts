import type { createdWebhookSchema, webhookDeliverySchema, webhookSchema } from '@cairn/contract';
import type { Workers } from '@cairn/workers';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createAsset, setPermissions } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { eventually as poll, startJobWorkers } from '../storage/storage-fixtures.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { verify } from './verify-signature.ts';

type Webhook = z.output<typeof webhookSchema>;
type CreatedWebhook = z.output<typeof createdWebhookSchema>;
type Delivery = z.output<typeof webhookDeliverySchema>;
type Body = { webhook_id: string; change: { position: string; kind: string; id: string; action: string; fields: Record<string, unknown> } };

const maxFailures = 3;
const maxPerOwner = 12;

/**
 * Deliveries follow the log, whose readers wait for the oldest transaction still running
 * anywhere in the cluster (docs/event-store.md): other test files' database copies hold
 * that back for a while, so waits here are long.
 */
const eventually = <T>(check: () => Promise<T | undefined | null | false>) => poll(check, 60_000);

describe('webhooks', { timeout: 180_000 }, () => {
  let h: Harness;
  let admin: User;
  let member: User;
  let stranger: User;
  let workers: Workers;
  let scheduler: { stop(): Promise<void> };
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    h = await startHarness('all', {
      CAIRN_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      CAIRN_WEBHOOK_ALLOW_HTTP: 'true',
      CAIRN_WEBHOOK_MAX_FAILURES: String(maxFailures),
      CAIRN_WEBHOOK_MAX_PER_OWNER: String(maxPerOwner),
      CAIRN_WEBHOOK_BACKOFF_MS: '50',
      CAIRN_WEBHOOK_POLL_MS: '50',
      CAIRN_JOB_ATTEMPTS: '2',
      CAIRN_JOB_BACKOFF_MS: '50',
    });
    admin = await h.createUser({ admin: true });
    member = await h.createUser();
    stranger = await h.createUser();
    workers = await startJobWorkers(h);
    scheduler = h.resources.webhookJobs.startScheduler();
  });
  afterAll(async () => {
    await scheduler.stop();
    await workers.stop();
    for (const r of receivers) await r.close();
    await h.close();
  });

  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };
  const subscribe = async (owner: User, body: Record<string, unknown>) => {
    const res = await request(h.commandApp).post('/api/webhooks/').set(bearer(owner)).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as CreatedWebhook;
  };
  const bodies = (r: Receiver) => r.received.map((x) => JSON.parse(x.body) as Body);
  const deliveries = async (owner: User, id: string) => {
    const res = await request(h.queryApp).get(`/api/webhooks/${id}/deliveries/`).set(bearer(owner));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as Delivery[];
  };
  const retitle = (caller: User, assetId: string, title: string) => request(h.commandApp).patch(`/api/assets/${assetId}/`).set(bearer(caller)).send({ title }).expect(200);

  it('are created with a secret answered once, read by their owner and system administrators only', async () => {
    const r = await receiver();
    const created = await subscribe(member, { url: r.url, kinds: ['asset'] });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created).toMatchObject({ owner_id: member.id, url: r.url, kinds: ['asset'], status: 'active', collection_id: null, asset_id: null });

    const read = await request(h.queryApp).get(`/api/webhooks/${created.id}/`).set(bearer(member)).expect(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(((await request(h.queryApp).get('/api/webhooks/').set(bearer(member)).expect(200)).body as Webhook[]).map((w) => w.id)).toContain(created.id);
    expect(((await request(h.queryApp).get('/api/webhooks/').set(bearer(stranger)).expect(200)).body as Webhook[]).map((w) => w.id)).not.toContain(created.id);
    await request(h.queryApp).get(`/api/webhooks/${created.id}/`).set(bearer(admin)).expect(200);

    // Anyone else meets what an unknown id meets, on every route.
    for (const res of [
      await request(h.queryApp).get(`/api/webhooks/${created.id}/`).set(bearer(stranger)),
      await request(h.queryApp).get(`/api/webhooks/${created.id}/deliveries/`).set(bearer(stranger)),
      await request(h.commandApp).patch(`/api/webhooks/${created.id}/`).set(bearer(stranger)).send({ status: 'paused' }),
      await request(h.commandApp).delete(`/api/webhooks/${created.id}/`).set(bearer(stranger)),
    ]) {
      expect([res.status, (res.body as { code: string }).code]).toEqual([404, 'not_found']);
    }

    // The log holds the secret sealed, never in clear.
    const { rows } = await h.resources.pool.query<{ data: string }>('select data::text as data from events where stream_id = $1', [`webhook-${created.id}`]);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.data).not.toContain(created.secret);

    await request(h.commandApp).delete(`/api/webhooks/${created.id}/`).set(bearer(member)).expect(204);
    await request(h.queryApp).get(`/api/webhooks/${created.id}/`).set(bearer(member)).expect(404);
  });

  it('refuse filters that name a collection or an asset the caller may not see, as unknown ids', async () => {
    const hidden = await createAsset(h, admin, { title: 'Hidden' });
    const res = await request(h.commandApp).post('/api/webhooks/').set(bearer(member)).send({ url: 'http://127.0.0.1:9/hook', asset_id: hidden.id });
    expect([res.status, res.body]).toMatchObject([404, { code: 'not_found', errors: { asset_id: ['Not found.'] } }]);
    const other = await request(h.commandApp).post('/api/webhooks/').set(bearer(member)).send({ url: 'http://127.0.0.1:9/hook', collection_id: hidden.id });
    expect([other.status, other.body]).toMatchObject([404, { errors: { collection_id: ['Not found.'] } }]);
  });

  it('deliver signed POSTs that the documented recipe verifies, in log order per resource', async () => {
    const r = await receiver();
    const secret = 'a-secret-of-the-receiver-0001';
    const hook = await subscribe(member, { url: r.url, secret, kinds: ['asset'] });
    const asset = await createAsset(h, member, { title: 'v0' });
    for (let i = 1; i <= 8; i += 1) await retitle(member, asset.id, `v${i}`);
    await eventually(async () => bodies(r).some((b) => b.change.fields['title'] === 'v8'));

    for (const got of r.received) {
      expect(verify(String(got.headers['cairn-signature']), got.body, secret)).toBe(true);
      expect(verify(String(got.headers['cairn-signature']), got.body, 'another-secret-entirely')).toBe(false);
      expect(got.headers['cairn-webhook-id']).toBe(hook.id);
    }
    const mine = bodies(r).filter((b) => b.change.id === asset.id);
    expect(mine.map((b) => b.change.fields['title'] ?? null)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7', 'v8']);
    expect(mine[0]?.change.action).toBe('created');
    const positions = mine.map((b) => b.change.position);
    expect(new Set(positions).size).toBe(positions.length);
    expect(r.received.map((x) => x.headers['cairn-change-position'])).toEqual(bodies(r).map((b) => b.change.position));

    // The log row is written once the receiver has answered: a moment after it recorded the POST.
    const log = await eventually(async () => {
      const rows = await deliveries(member, hook.id);
      return rows.length === r.received.length ? rows : null;
    });
    expect(log.every((d) => d.outcome === 'delivered')).toBe(true);
    expect(log[0]).toMatchObject({ webhook_id: hook.id, status_code: 204, attempt: 1, replay_of: null });
    // Newest first, as many as asked for; the body as it was sent.
    const newest = await request(h.queryApp).get(`/api/webhooks/${hook.id}/deliveries/?limit=2`).set(bearer(member)).expect(200);
    expect((newest.body as Delivery[]).map((d) => d.position)).toEqual(log.slice(0, 2).map((d) => d.position));
    expect((newest.body as Delivery[])[0]?.body).toEqual(JSON.parse(r.received.find((x) => x.headers['cairn-delivery-id'] === log[0]?.id)?.body ?? 'null'));
    const bad = await request(h.queryApp).get(`/api/webhooks/${hook.id}/deliveries/?limit=many`).set(bearer(member));
    expect([bad.status, (bad.body as { code: string }).code]).toEqual([400, 'validation_error']);
  });

  it('deliver only what the owner may see when it is sent: a grant starts the flow, its revocation stops it', async () => {
    const r = await receiver();
    const hook = await subscribe(member, { url: r.url });
    const secret = await createAsset(h, admin, { title: 'Never shared' });
    const shared = await createAsset(h, admin, { title: 'Shared later' });
    const marker = await createAsset(h, member, { title: 'Marker' });
    await retitle(admin, secret.id, 'Still not shared');
    await setPermissions(h, admin, shared.id, [{ subject_type: 'user', subject_id: member.id, flags: 1 }]);
    await retitle(admin, shared.id, 'Seen');
    await eventually(async () => bodies(r).some((b) => b.change.id === shared.id && b.change.fields['title'] === 'Seen'));

    await setPermissions(h, admin, shared.id, []);
    await retitle(admin, shared.id, 'Unseen again');
    await retitle(member, marker.id, 'Marker moved');
    await eventually(async () => bodies(r).some((b) => b.change.id === marker.id && b.change.fields['title'] === 'Marker moved'));

    const seen = bodies(r);
    expect(seen.some((b) => b.change.id === secret.id)).toBe(false);
    expect(seen.some((b) => b.change.id === shared.id && b.change.fields['title'] === 'Unseen again')).toBe(false);
    expect(seen.find((b) => b.change.id === shared.id)).toBeDefined();
    expect((await deliveries(member, hook.id)).every((d) => d.outcome === 'delivered')).toBe(true);
  });

  it('retry a failing receiver with back-off, then pause the subscription with the reason, and resume where it stopped', async () => {
    const r = await receiver();
    r.status = 500;
    const hook = await subscribe(member, { url: r.url, kinds: ['asset'] });
    const asset = await createAsset(h, member, { title: 'Refused' });
    const paused = await eventually(async () => {
      const res = await request(h.queryApp).get(`/api/webhooks/${hook.id}/`).set(bearer(member)).expect(200);
      const body = res.body as Webhook;
      return body.status === 'paused' ? body : null;
    });
    expect(paused.paused_reason).toMatch(new RegExp(`${maxFailures} deliveries failed in a row.*500`));
    const failed = await deliveries(member, hook.id);
    expect(failed.map((d) => [d.outcome, d.status_code])).toEqual(Array.from({ length: maxFailures }, () => ['failed', 500]));
    expect(failed.map((d) => d.attempt).sort()).toEqual([1, 2, 3]);
    // Each retry waited its back-off: the job's own (CAIRN_JOB_BACKOFF_MS), then the subscription's, doubled per failure.
    const times = failed.map((d) => Date.parse(d.attempted_at)).sort((a, b) => a - b);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(45);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(95);
    const tries = r.received.length;
    expect(tries).toBe(maxFailures);

    // Paused: nothing is tried, whatever changes.
    await retitle(member, asset.id, 'While paused');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(r.received).toHaveLength(tries);

    r.status = 200;
    const resumed = await request(h.commandApp).patch(`/api/webhooks/${hook.id}/`).set(bearer(member)).send({ status: 'active' });
    expect([resumed.status, (resumed.body as Webhook).status, (resumed.body as Webhook).paused_reason]).toEqual([200, 'active', null]);
    await eventually(async () => bodies(r).some((b) => b.change.fields['title'] === 'While paused'));
    const after = bodies(r).slice(tries).map((b) => b.change.fields['title']);
    // The change that failed comes first: nothing was skipped.
    expect(after).toEqual(['Refused', 'While paused']);
  });

  it('replay a logged delivery with the same body and a fresh signature, as a job', async () => {
    const r = await receiver();
    const secret = 'replay-secret-0123456789';
    const hook = await subscribe(member, { url: r.url, secret, kinds: ['asset'] });
    await createAsset(h, member, { title: 'Replayed' });
    const [first] = await eventually(async () => {
      const rows = await deliveries(member, hook.id);
      return rows.length === 1 ? rows : null;
    });
    const res = await request(h.commandApp).post(`/api/webhooks/${hook.id}/deliveries/${first!.id}/replay/`).set(bearer(member));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const log = await eventually(async () => {
      const rows = await deliveries(member, hook.id);
      return rows.length === 2 ? rows : null;
    });
    expect(log.find((d) => d.replay_of === first!.id)).toMatchObject({ outcome: 'delivered', position: first!.position });
    const replay = r.received[1]!;
    expect(r.received).toHaveLength(2);
    expect(replay.body).toBe(r.received[0]!.body);
    expect(replay.headers['cairn-replay-of']).toBe(first!.id);
    expect(verify(String(replay.headers['cairn-signature']), replay.body, secret)).toBe(true);

    const unknown = await request(h.commandApp).post(`/api/webhooks/${hook.id}/deliveries/${hook.id}/replay/`).set(bearer(member));
    expect(unknown.status).toBe(404);
    const foreign = await request(h.commandApp).post(`/api/webhooks/${hook.id}/deliveries/${first!.id}/replay/`).set(bearer(stranger));
    expect(foreign.status).toBe(404);
  });

  it('replay a change only while its owner may still see it: a grant revoked since sends nothing, and says so in the log', async () => {
    const r = await receiver();
    const hook = await subscribe(member, { url: r.url, kinds: ['asset'] });
    const lent = await createAsset(h, admin, { title: 'Lent for a while' });
    await setPermissions(h, admin, lent.id, [{ subject_type: 'user', subject_id: member.id, flags: 1 }]);
    // Its creation and the grant, both judged once the grant was given.
    const [granted] = await eventually(async () => {
      const rows = await deliveries(member, hook.id);
      return rows.length === 2 ? rows : null;
    });
    await setPermissions(h, admin, lent.id, []);
    const res = await request(h.commandApp).post(`/api/webhooks/${hook.id}/deliveries/${granted!.id}/replay/`).set(bearer(member));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const refused = await eventually(async () => (await deliveries(member, hook.id)).find((d) => d.replay_of === granted!.id));
    expect(refused).toMatchObject({ outcome: 'failed', status_code: null, error: expect.stringMatching(/may no longer see/) });
    expect(r.received).toHaveLength(2);
  });

  it('are bounded per owner (409), and leave no delivery log or progress behind when deleted', async () => {
    const busy = await h.createUser();
    const r = await receiver();
    const first = await subscribe(busy, { url: r.url, kinds: ['asset'] });
    for (let n = 1; n < maxPerOwner; n += 1) await subscribe(busy, { url: r.url, kinds: ['collection'] });
    const refused = await request(h.commandApp).post('/api/webhooks/').set(bearer(busy)).send({ url: r.url });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ status: 409, code: 'webhook_limit_reached' });
    // Another user is not held back by this one's subscriptions.
    await subscribe(stranger, { url: r.url, kinds: ['note'] });

    await createAsset(h, busy, { title: 'Logged, then forgotten' });
    await eventually(async () => (await deliveries(busy, first.id)).length > 0);
    await request(h.commandApp).delete(`/api/webhooks/${first.id}/`).set(bearer(busy)).expect(204);
    await eventually(async () => {
      const { rows } = await h.resources.pool.query<{ n: string }>(
        'select (select count(*) from webhook_deliveries where webhook_id = $1) + (select count(*) from webhook_progress where webhook_id = $1) as n',
        [first.id],
      );
      return rows[0]?.n === '0';
    });
    // A slot given back: the owner may subscribe again.
    await subscribe(busy, { url: r.url });
  });

  it('pause the subscription of an owner who was deactivated, and deliver nothing more', async () => {
    const leaving = await h.createUser();
    const r = await receiver();
    const hook = await subscribe(leaving, { url: r.url });
    await request(h.commandApp).patch(`/api/admin/users/${leaving.id}/`).set(bearer(admin)).send({ is_active: false }).expect(200);
    await createAsset(h, admin, { title: 'After the owner left' });
    const paused = await eventually(async () => {
      const res = await request(h.queryApp).get(`/api/webhooks/${hook.id}/`).set(bearer(admin)).expect(200);
      return (res.body as Webhook).status === 'paused' ? (res.body as Webhook) : null;
    });
    expect(paused.paused_reason).toBe('The owner is no longer an active user.');
    expect(r.received).toHaveLength(0);
  });

  it('deliver through BullMQ when REDIS_URL is set', async () => {
    await workers.stop();
    workers = await startJobWorkers(h, process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');
    expect(workers.mode).toBe('bullmq');
    try {
      const r = await receiver();
      const secret = 'bullmq-secret-0123456789';
      await subscribe(member, { url: r.url, secret, kinds: ['asset'] });
      const asset = await createAsset(h, member, { title: 'Queued' });
      await retitle(member, asset.id, 'Queued again');
      await eventually(async () => r.received.length === 2);
      expect(bodies(r).map((b) => b.change.fields['title'])).toEqual(['Queued', 'Queued again']);
      expect(r.received.every((got) => verify(String(got.headers['cairn-signature']), got.body, secret))).toBe(true);
    } finally {
      await workers.stop();
      workers = await startJobWorkers(h);
    }
  });

  it('change the URL, the filters and the secret; a change that changes nothing records nothing', async () => {
    const r = await receiver();
    const hook = await subscribe(member, { url: r.url });
    const asset = await createAsset(h, member, { title: 'Filtered' });
    const res = await request(h.commandApp).patch(`/api/webhooks/${hook.id}/`).set(bearer(member)).send({ asset_id: asset.id, kinds: ['asset', 'note'], secret: 'rotated-secret-0123456789' });
    expect([res.status, res.body]).toMatchObject([200, { asset_id: asset.id, kinds: ['asset', 'note'] }]);
    expect(res.body).not.toHaveProperty('secret');
    const same = await request(h.commandApp).patch(`/api/webhooks/${hook.id}/`).set(bearer(member)).send({ url: r.url });
    expect(same.status).toBe(200);
    const bad = await request(h.commandApp).patch(`/api/webhooks/${hook.id}/`).set(bearer(member)).send({ kinds: ['everything'] });
    expect([bad.status, (bad.body as { code: string }).code]).toEqual([400, 'validation_error']);
  });
});
