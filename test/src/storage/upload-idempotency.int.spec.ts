import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { fsRepository, grantAllocation, type Content } from './storage-fixtures.ts';

// Issue 23 (low): a multipart upload retried with the same Idempotency-Key and another file
// replayed the first answer; like a JSON body, another body is 422 (docs/idempotency.md).

let h: Harness;
let owner: User;

beforeAll(async () => {
  h = await startHarness('all');
  const admin = await h.createUser({ admin: true });
  owner = await h.createUser();
  const repo = await fsRepository(h, 'keyed');
  await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: repo.id, limit_bytes: 1_000_000 });
});
afterAll(async () => {
  await h.close();
});

/** supertest's form-data draws a new boundary for each request, as real clients do. */
function keyedUpload(assetId: string, key: string, bytes: Buffer, filename = 'data.bin') {
  return request(h.commandApp).post(`/api/assets/${assetId}/content/`).set(bearer(owner)).set('Idempotency-Key', key).attach('file', bytes, { filename, contentType: 'application/octet-stream' });
}

describe('an upload under an Idempotency-Key', () => {
  it('retried with the same file replays the first answer', async () => {
    const asset = await createAsset(h, owner);
    const first = await keyedUpload(asset.id, 'same-file', Buffer.from('first file'));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await keyedUpload(asset.id, 'same-file', Buffer.from('first file'));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((again.body as Content).id).toBe((first.body as Content).id);
  });

  it.each([
    ['another file', Buffer.from('second file'), 'data.bin'],
    ['the same bytes under another name', Buffer.from('first file'), 'other.bin'],
  ])('retried with %s is 422 idempotency_key_reused, and stores nothing more', async (_case, bytes, filename) => {
    const asset = await createAsset(h, owner);
    const key = `other-${filename}-${bytes.length}`;
    const first = await keyedUpload(asset.id, key, Buffer.from('first file'));
    expect(first.status).toBe(201);
    const other = await keyedUpload(asset.id, key, bytes, filename);
    expect(other.status, JSON.stringify(other.body)).toBe(422);
    expect(other.body).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    const list = await request(h.queryApp).get(`/api/assets/${asset.id}/content/`).set(bearer(owner));
    expect(list.body.map((c: Content) => c.id)).toEqual([(first.body as Content).id]);
    // The first answer is still kept for its own retries.
    const same = await keyedUpload(asset.id, key, Buffer.from('first file'));
    expect(same.status).toBe(201);
    expect(same.headers['idempotent-replayed']).toBe('true');
  });

  it('retried as a JSON record is 422 too', async () => {
    const asset = await createAsset(h, owner);
    const first = await keyedUpload(asset.id, 'then-json', Buffer.from('first file'));
    expect(first.status).toBe(201);
    const json = await request(h.commandApp).post(`/api/assets/${asset.id}/content/`).set(bearer(owner)).set('Idempotency-Key', 'then-json').send({ key: 'elsewhere/object' });
    expect(json.status).toBe(422);
  });
});
