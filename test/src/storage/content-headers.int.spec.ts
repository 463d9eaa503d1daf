import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { signDownload } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { fsRepository, grantAllocation, type Content } from './storage-fixtures.ts';

// Issue 23 finding 6: what a record holds must never make its download a 500. And a
// record pointing at something that is not an object is 400, not 500.

let h: Harness;
let admin: User;
let owner: User;
let repo: { id: string; dir: string };

beforeAll(async () => {
  h = await startHarness('all');
  admin = await h.createUser({ admin: true });
  owner = await h.createUser();
  repo = await fsRepository(h, 'headers');
  await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: repo.id, limit_bytes: 1_000_000 });
});
afterAll(async () => {
  await h.close();
});

function uploadWith(assetId: string, fields: { filename?: string; content_type?: string }) {
  const req = request(h.commandApp).post(`/api/assets/${assetId}/content/`).set(bearer(owner)).field('repository_id', repo.id);
  for (const [name, value] of Object.entries(fields)) req.field(name, value);
  return req.attach('file', Buffer.from('some bytes'), { filename: 'plain.bin', contentType: 'application/octet-stream' });
}

function download(content: Content) {
  const expires = Math.floor(Date.now() / 1000) + 600;
  const signature = signDownload(h.resources.downloadKey, content.asset_id, content.id, expires);
  return request(h.queryApp).get(`/api/assets/${content.asset_id}/content/${content.id}/download/?expires=${expires}&signature=${signature}`).buffer(true);
}

describe('downloads of any stored name', () => {
  it.each([
    ['a euro sign', '€ report.txt', `attachment; filename="_ report.txt"; filename*=UTF-8''%E2%82%AC%20report.txt`],
    ['an emoji', 'data 😀.csv', `attachment; filename="data __.csv"; filename*=UTF-8''data%20%F0%9F%98%80.csv`],
    ['a line separator', 'a\u2028b.txt', `attachment; filename=a_b.txt; filename*=UTF-8''a%E2%80%A8b.txt`],
    ['a quote', 'say "hi" now.txt', `attachment; filename="say _hi_ now.txt"; filename*=UTF-8''say%20%22hi%22%20now.txt`],
  ])('serve a name with %s as an RFC 6266 attachment (ASCII fallback, exact UTF-8 name)', async (_case, filename, header) => {
    const asset = await createAsset(h, owner);
    const res = await uploadWith(asset.id, { filename });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const got = await download(res.body as Content);
    expect(got.status, got.text).toBe(200);
    expect(got.headers['content-disposition']).toBe(header);
    expect(got.body.toString()).toBe('some bytes');
  });
});

describe('content types', () => {
  it.each([
    ['a control character', 'text/plain; charset=\u0001utf-8'],
    ['a character outside Latin-1', 'text/plain; name=€'],
    ['a line break', 'text/plain;\r\nX-Injected: 1'],
  ])('with %s are refused at upload (400)', async (_case, contentType) => {
    const asset = await createAsset(h, owner);
    const res = await uploadWith(asset.id, { content_type: contentType });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body, JSON.stringify(res.body)).toMatchObject({ status: 400, errors: { content_type: [expect.any(String)] } });
  });

  it('stored by an older version with a control character are served as application/octet-stream', async () => {
    const asset = await createAsset(h, owner);
    const res = await uploadWith(asset.id, { content_type: 'text/plain' });
    expect(res.status).toBe(201);
    const content = res.body as Content;
    const changed = await h.resources.pool.query('update asset_contents set content_type = $1 where id = $2', ['text/plain; charset=\u0001x', content.id]);
    expect(changed.rowCount).toBe(1);
    const got = await download(content);
    expect(got.status, got.text).toBe(200);
    expect(got.headers['content-type']).toBe('application/octet-stream');
    expect(got.body.toString()).toBe('some bytes');
  });
});

describe('recording an object that is not one', () => {
  it.each([
    ['a directory', 'shelf'],
    ['a path through a file', 'notes.txt/inner'],
    // Longer than a file name may be (255 bytes): the long fuzz run found it a 500.
    ['a name too long for the file system', `${'x'.repeat(300)}/object`],
    ['a name of multi-byte characters too long for the file system', 'é'.repeat(200)],
  ])('answers 404 naming key for %s, like a missing object, not 500', async (_case, key) => {
    await mkdir(path.join(repo.dir, 'shelf'), { recursive: true });
    await writeFile(path.join(repo.dir, 'notes.txt'), 'notes');
    const asset = await createAsset(h, owner);
    const res = await request(h.commandApp).post(`/api/assets/${asset.id}/content/`).set(bearer(admin)).send({ key, repository_id: repo.id });
    expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect(res.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { key: ['Not found.'] } });
  });
});
