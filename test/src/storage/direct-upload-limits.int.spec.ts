import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import type { User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { abortUpload, allocationOf, MiB, startUpload, type Upload } from './direct-upload-fixtures.ts';
import { fsRepository, grantAllocation } from './storage-fixtures.ts';

// A hostile (or careless) writer with room on an allocation could open uploads of a byte each
// without end: each is a directory (or an S3 multipart upload), rows and a job. At most
// CAIRN_UPLOAD_MAX_OPEN are open at once per allocation.

const maxOpen = 3;
let h: Harness;
let admin: User;

beforeAll(async () => {
  h = await startHarness('all', { CAIRN_UPLOAD_MAX_OPEN: String(maxOpen) });
  admin = await h.createUser({ admin: true });
});
afterAll(async () => {
  await h?.close();
});

describe('open uploads per allocation', () => {
  it('are capped, also for starts at once; an ended upload makes room again', async () => {
    const user = await h.createUser();
    const repo = await fsRepository(h, 'limits');
    const allocation = await grantAllocation(h, admin, { owner_type: 'user', owner_id: user.id, repository_id: repo.id, limit_bytes: 100 * MiB });
    const asset = await createAsset(h, user);

    const starts = await Promise.all(Array.from({ length: 8 }, () => startUpload(h, user, asset.id, { size: 1, repository_id: repo.id })));
    const statuses = starts.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
    for (const refused of starts.filter((r) => r.status === 409)) expect(refused.body).toMatchObject({ status: 409, code: 'too_many_open_uploads' });
    expect(await allocationOf(h, user, allocation.id)).toMatchObject({ reserved_bytes: 3 });

    const other = await createAsset(h, user);
    const refused = await startUpload(h, user, other.id, { size: 1, repository_id: repo.id });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'too_many_open_uploads' });

    const first = starts.find((r) => r.status === 201)?.body as Upload;
    expect((await abortUpload(h, user, asset.id, first.id)).status).toBe(204);
    expect((await startUpload(h, user, other.id, { size: 1, repository_id: repo.id })).status).toBe(201);
  });
});
