import { randomUUID } from 'node:crypto';
import { createLogger, createNetworkList, createPool, emptyNetworkList, openEventStore, type Resolve } from '@cairn/platform';
import { createReadDb } from '@cairn/projections';
import { sendDelivery, type WebhookDeliveryDeps } from '@cairn/workers/webhook-jobs';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/**
 * The target is checked again at each delivery, and the POST goes to the address that check
 * resolved (docs/changes.md, "Where webhooks may go"): a name that resolved to a public
 * address at creation and resolves to loopback now is refused, not connected to.
 */
describe('a delivery’s target', () => {
  let pool: pg.Pool;
  let receiver: Receiver;
  let url: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    pool = createPool(databaseUrl, 2);
    receiver = await startReceiver();
    // A name no resolver knows: only the test's resolver gives it an address.
    url = receiver.url.replace('127.0.0.1', 'rebound.cairn.test');
  });
  afterAll(async () => {
    await receiver.close();
    await pool.end();
  });

  const deps = (allowed: readonly string[], resolve: Resolve): WebhookDeliveryDeps => ({
    pool,
    db: createReadDb(pool),
    eventStore: openEventStore({ pool, databaseUrl: '', eventStoreUrl: undefined, inline: undefined, announce: false }),
    logger: createLogger('silent'),
    readFeedPage: () => Promise.reject(new Error('not read here')),
    policy: { allowedNetworks: allowed.length > 0 ? createNetworkList(allowed) : emptyNetworkList, allowHttp: true },
    key: Buffer.alloc(32),
    settings: { timeoutMs: 2000, maxFailures: 3, backoffMs: 10, pollMs: 50, concurrency: 2, deliveryLogKept: 3 },
    resolve,
  });
  const send = (d: WebhookDeliveryDeps, webhookId: string) => sendDelivery(d, { id: webhookId, url, secret: 'whsec_test' }, { position: '1.1', kind: 'asset', body: '{"change":{}}', attempt: 1 });

  it('is refused when its name resolves to loopback now, and nothing is sent', async () => {
    const webhookId = randomUUID();
    const { outcome } = await send(deps([], async () => ['127.0.0.1']), webhookId);
    expect(outcome).toMatchObject({ ok: false, status: null, error: expect.stringMatching(/resolves to a loopback, private, link-local or other special-purpose address/) });
    expect(receiver.received).toHaveLength(0);
    const { rows } = await pool.query('select outcome, status_code, error from webhook_deliveries where webhook_id = $1', [webhookId]);
    expect(rows).toEqual([{ outcome: 'failed', status_code: null, error: expect.stringMatching(/special-purpose/) }]);
  });

  it('counts a redirect and a receiver that answers too late as failures', async () => {
    const local = deps(['127.0.0.0/8'], async () => ['127.0.0.1']);
    receiver.status = 302;
    expect((await send(local, randomUUID())).outcome).toMatchObject({ ok: false, status: 302 });
    receiver.status = 204;
    receiver.delayMs = 3000;
    const started = Date.now();
    expect((await send({ ...local, settings: { ...local.settings, timeoutMs: 300 } }, randomUUID())).outcome).toMatchObject({ ok: false, status: null, error: 'No answer within 300 ms.' });
    expect(Date.now() - started).toBeLessThan(2000);
    receiver.delayMs = 0;
    receiver.received.length = 0;
  });

  it('keeps only the newest attempts of a subscription in its delivery log', async () => {
    const webhookId = randomUUID();
    const refused = deps([], async () => ['127.0.0.1']);
    for (let n = 0; n < 5; n += 1) await send(refused, webhookId);
    const { rows } = await pool.query<{ id: string }>('select id from webhook_deliveries where webhook_id = $1 order by attempted_at, id', [webhookId]);
    expect(rows).toHaveLength(refused.settings.deliveryLogKept);
    // Another subscription's log is not touched.
    const other = randomUUID();
    await send(refused, other);
    expect((await pool.query('select 1 from webhook_deliveries where webhook_id = $1', [webhookId])).rows).toHaveLength(3);
  });

  it('connects to the address the check resolved, not to a second lookup’s', async () => {
    const { outcome } = await send(deps(['127.0.0.0/8'], async () => ['127.0.0.1']), randomUUID());
    expect(outcome).toMatchObject({ ok: true, status: 204 });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.headers.host).toMatch(/^rebound\.cairn\.test:\d+$/);
  });
});
