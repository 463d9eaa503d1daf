import type { Change } from '@cairn/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { publicUrl, startHarness, type Harness } from '../support/harness.ts';
import { freePort, startCairn, type ServerProcess } from '../support/processes.ts';
import { logSettled } from './log-horizon.ts';
import { openSse } from './sse-client.ts';

// Issue 28, "done when": a follower that reconnects with Last-Event-ID after the query
// service was killed (SIGKILL, no shutdown) misses nothing and repeats nothing.

let h: Harness;
let owner: User;
const children: ServerProcess[] = [];

const queryService = async (port: number) => {
  const child = await startCairn(['--role', 'query'], { DATABASE_URL: h.databaseUrl, REDIS_URL: '', CAIRN_PUBLIC_URL: publicUrl, CAIRN_LOG_LEVEL: 'silent', PORT: String(port), CAIRN_CHANGES_HEARTBEAT_MS: '200' });
  children.push(child);
  return child;
};

beforeAll(async () => {
  h = await startHarness('all');
  owner = await h.createUser();
});
afterAll(async () => {
  for (const child of children) await child.stop();
  await h.close();
});

describe('a change stream across a killed service', { timeout: 300_000 }, () => {
  it('resumes with Last-Event-ID: every change once, in log order', async () => {
    const asset = await createAsset(h, owner, { title: 'Across a kill' });
    const port = await freePort();
    const first = await queryService(port);
    const url = `http://127.0.0.1:${port}/api/changes/?asset_id=${asset.id}`;
    const write = (n: number) => request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ description: `v${n}` }).expect(200);

    const before = await openSse(url, owner.token);
    expect(before.status).toBe(200);
    for (let n = 0; n < 5; n += 1) await write(n);
    await before.waitFor((changes) => changes.length >= 3);

    // Killed while the writes go on: the stream breaks mid-way, whatever it had sent.
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    await before.ended;
    for (let n = 5; n < 10; n += 1) await write(n);

    await queryService(port);
    const after = await openSse(url, owner.token, before.lastEventId());
    expect(after.status).toBe(200);
    for (let n = 10; n < 12; n += 1) await write(n);
    await after.waitFor((changes) => changes.some((c) => c.fields['description'] === 'v11'));

    const received: Change[] = [...before.changes, ...after.changes];
    expect(received.map((c) => (c.action === 'created' ? 'created' : c.fields['description']))).toEqual(['created', ...Array.from({ length: 12 }, (_, n) => `v${n}`)]);
    expect(new Set(received.map((c) => c.position)).size).toBe(received.length);
    // The same changes, at the same positions, as the JSON feed answers them.
    await logSettled(h.resources.eventStore, 120_000);
    const page = await request(h.queryApp).get(`/api/changes/?asset_id=${asset.id}`).set(bearer(owner)).expect(200);
    expect(received.map((c) => c.position)).toEqual((page.body as { changes: Change[] }).changes.map((c) => c.position));
    after.close();
  });
});
