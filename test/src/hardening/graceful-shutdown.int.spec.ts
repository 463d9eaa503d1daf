import { request as httpRequest } from 'node:http';
import { createRepository, serve } from '@cairn/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { grantAllocation } from '../storage/storage-fixtures.ts';
import type { User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let admin: User;
let owner: User;

beforeAll(async () => {
  h = await startHarness('all', { CAIRN_SHUTDOWN_TIMEOUT_MS: '5000' });
  admin = await h.createUser({ admin: true });
  owner = await h.createUser();
  const { id } = await createRepository(h.resources, 'shutdown-repo', { kind: 'fs', path: `/tmp/cairn-shutdown-${Date.now()}` });
  await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: id, limit_bytes: 10_000_000 });
});
afterAll(async () => {
  await h.close();
});

describe('a graceful shutdown', () => {
  it('lets an upload in flight finish, then stops accepting', async () => {
    const asset = await createAsset(h, owner);
    const running = await serve(h.resources, 'all', 0);
    const url = new URL(running.url ?? '');
    const boundary = 'cairn-shutdown-boundary';
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: `/api/assets/${asset.id}/content/`,
      headers: { Authorization: `Bearer ${owner.token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Transfer-Encoding': 'chunked' },
    });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    req.write(Buffer.alloc(64 * 1024, 1));
    await new Promise((resolve) => setTimeout(resolve, 200));

    // SIGTERM's path: the server stops accepting while the upload is still being sent.
    const stopping = running.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await fetch(`${running.url}/healthz`).then(
      () => 'answered',
      () => 'refused',
    );
    expect(refused).toBe('refused');
    req.write(Buffer.alloc(64 * 1024, 2));
    req.end(`\r\n--${boundary}--\r\n`);
    const { status, body } = await answer;
    expect(status, body).toBe(201);
    expect(JSON.parse(body)).toMatchObject({ size: 128 * 1024 });
    await stopping;
  });
});
