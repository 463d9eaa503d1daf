import { rm, writeFile } from 'node:fs/promises';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { eventually, fsRepository, grantAllocation, startJobWorkers, upload } from './storage-fixtures.ts';

/**
 * Issue 25, "also seen": a failed migration's `error` is read by whoever sees the asset;
 * it says what failed, never the server's directories (docs/storage.md).
 */

let h: Harness;
let root: User;
let owner: User;

beforeAll(async () => {
  h = await startHarness('all');
  root = await h.createUser({ admin: true });
  owner = await h.createUser();
});
afterAll(async () => h.close());

describe('a failed migration', () => {
  it('answers an error without server paths', async () => {
    const [source, target] = [await fsRepository(h, 'fail-source'), await fsRepository(h, 'fail-target')];
    await grantAllocation(h, root, { owner_type: 'user', owner_id: owner.id, repository_id: source.id, limit_bytes: 10_000 });
    await grantAllocation(h, root, { owner_type: 'user', owner_id: owner.id, repository_id: target.id, limit_bytes: 10_000 });
    const asset = await createAsset(h, owner);
    expect((await upload(h, owner, asset.id, Buffer.from('moving'), { repositoryId: source.id })).status).toBe(201);
    // The target's directory becomes a file: every write there fails with a system error naming its path.
    await rm(target.dir, { recursive: true });
    await writeFile(target.dir, 'not a directory');

    const workers = await startJobWorkers(h);
    try {
      const started = await request(h.commandApp).post(`/api/assets/${asset.id}/migrations/`).set(bearer(owner)).send({ target_repository_id: target.id });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      const failed = await eventually(async () => {
        const res = await request(h.queryApp).get(`/api/assets/${asset.id}/migrations/`).set(bearer(owner));
        return (res.body as { id: string; error: string | null }[]).find((m) => m.id === started.body.id && m.error !== null);
      });
      expect(failed.error).toBe('Storage failed: the repository is not a directory where one is needed (ENOTDIR).');
      expect(failed.error).not.toContain(target.dir);
    } finally {
      await workers.stop();
      await rm(target.dir, { force: true });
    }
  });
});
