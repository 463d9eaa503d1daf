import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions, type Asset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { fsRepository, grantAllocation, type Allocation, type Content } from './storage-fixtures.ts';

/**
 * DECISIONS.md 8: recording an object already in a repository (AssetContentWrite). A caller
 * with WRITE_CONTENT records keys under the asset's own prefix; any other key needs a
 * system administrator; in multipart, a body without a file part is such a record. Size
 * and SHA-256 are measured at the repository before the allocation is charged.
 */
const READ_METADATA = 1;
const READ_CONTENT = 4;
const WRITE_CONTENT = 8;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let h: Harness;
let admin: User;
let owner: User;
let writer: User;
let reader: User;
let stranger: User;
let repo: { id: string; dir: string };
let allocation: Allocation;

beforeAll(async () => {
  h = await startHarness('all');
  admin = await h.createUser({ admin: true });
  owner = await h.createUser();
  writer = await h.createUser();
  reader = await h.createUser();
  stranger = await h.createUser();
  repo = await fsRepository(h, 'records');
  allocation = await grantAllocation(h, admin, { owner_type: 'user', owner_id: owner.id, repository_id: repo.id, limit_bytes: 10_000 });
});
afterAll(async () => {
  await h.close();
});

/** An asset of `owner` that `writer` may write content to and `reader` may only read. */
async function sharedAsset(): Promise<Asset> {
  const asset = await createAsset(h, owner);
  await setPermissions(h, owner, asset.id, [
    { subject_type: 'user', subject_id: writer.id, flags: READ_METADATA | WRITE_CONTENT },
    { subject_type: 'user', subject_id: reader.id, flags: READ_METADATA | READ_CONTENT },
  ]);
  return asset;
}

/** Puts bytes in the repository at `key`, as a client of the upload URLs (or an operator) would. */
async function putObject(key: string, bytes: Buffer): Promise<void> {
  const file = path.join(repo.dir, ...key.split('/'));
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, bytes);
}

const record = (caller: User, assetId: string, body: Record<string, unknown>) => request(h.commandApp).post(`/api/assets/${assetId}/content/`).set(bearer(caller)).send(body);
const contents = async (assetId: string) => (await request(h.queryApp).get(`/api/assets/${assetId}/content/`).set(bearer(owner)).expect(200)).body as Content[];
const used = async () => ((await request(h.queryApp).get(`/api/allocations/${allocation.id}/`).set(bearer(owner)).expect(200)).body as Allocation).used_bytes;

describe('recording an object already in a repository', () => {
  it('lets a WRITE_CONTENT holder record a key under the asset’s own prefix: 201, size and SHA-256 measured, allocation charged', async () => {
    const asset = await sharedAsset();
    const bytes = Buffer.from('id,depth\n1,12.5\n2,13.0\n');
    const key = `assets/${asset.id}/direct/depths.csv`;
    await putObject(key, bytes);
    const before = await used();
    const res = await record(writer, asset.id, { key, content_type: 'text/csv' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ asset_id: asset.id, repository_id: repo.id, allocation_id: allocation.id, key, filename: 'depths.csv', size: bytes.length, sha256: sha(bytes), content_type: 'text/csv', origin: 'reference' });
    expect(await used()).toBe(before + bytes.length);
    // The record serves the object's bytes to the asset's readers.
    const content = res.body as Content;
    const download = await request(h.queryApp).get(`/api/assets/${asset.id}/location/`).set(bearer(reader)).expect(200);
    const link = (download.body as { content: { content_id: string; url: string }[] }).content.find((c) => c.content_id === content.id)?.url ?? '';
    const got = await request(h.queryApp).get(new URL(link).pathname + new URL(link).search).buffer(true).parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect([got.status, (got.body as Buffer).toString()]).toEqual([200, bytes.toString()]);
  });

  it('refuses a WRITE_CONTENT holder any key outside the asset’s prefix with 403, recording and charging nothing', async () => {
    const asset = await sharedAsset();
    const other = await createAsset(h, owner);
    await putObject('shared/census.csv', Buffer.from('not yours to expose'));
    await putObject(`assets/${other.id}/secret.bin`, Buffer.from('another asset’s bytes'));
    const before = await used();
    for (const key of ['shared/census.csv', `assets/${other.id}/secret.bin`, `assets/${asset.id.toUpperCase()}/x`]) {
      const res = await record(writer, asset.id, { key });
      expect([res.status, res.body.code], key).toEqual([403, 'permission_denied']);
    }
    // The asset's owner holds every flag, and still is no system administrator.
    expect((await record(owner, asset.id, { key: 'shared/census.csv' })).status).toBe(403);
    expect(await contents(asset.id)).toEqual([]);
    expect(await used()).toBe(before);
  });

  it('answers 403 to a caller who sees the asset without WRITE_CONTENT, and 404 to one who does not see it', async () => {
    const asset = await sharedAsset();
    const key = `assets/${asset.id}/direct/readme.txt`;
    await putObject(key, Buffer.from('hello'));
    expect([(await record(reader, asset.id, { key })).status, (await record(stranger, asset.id, { key })).status]).toEqual([403, 404]);
    expect(await contents(asset.id)).toEqual([]);
  });

  it('takes a multipart body without a file part as a record (201), and one without file or key as a 400 naming key', async () => {
    const asset = await sharedAsset();
    const bytes = Buffer.from('multipart record');
    const key = `assets/${asset.id}/direct/notes.txt`;
    await putObject(key, bytes);
    const res = await request(h.commandApp).post(`/api/assets/${asset.id}/content/`).set(bearer(writer)).field('key', key).field('filename', 'field-notes.txt').field('repository_id', repo.id);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ key, filename: 'field-notes.txt', size: bytes.length, sha256: sha(bytes), origin: 'reference', repository_id: repo.id });
    // The same rule as JSON: outside the prefix, 403.
    expect((await request(h.commandApp).post(`/api/assets/${asset.id}/content/`).set(bearer(writer)).field('key', 'shared/census.csv')).status).toBe(403);
    const empty = await request(h.commandApp).post(`/api/assets/${asset.id}/content/`).set(bearer(writer)).field('filename', 'x.txt');
    expect([empty.status, empty.body.code, Object.keys(empty.body.errors ?? {})]).toEqual([400, 'validation_error', ['key']]);
  });

  it('answers 404 naming key for a key with no object, and 409 when the object is larger than the allocation has left; nothing charged', async () => {
    const small = await h.createUser();
    const tight = await grantAllocation(h, admin, { owner_type: 'user', owner_id: small.id, repository_id: repo.id, limit_bytes: 10 });
    const asset = await createAsset(h, small);
    const missing = await record(small, asset.id, { key: `assets/${asset.id}/never-sent.bin` });
    expect(missing.body).toEqual({ status: 404, code: 'not_found', detail: expect.any(String), errors: { key: ['Not found.'] } });
    const big = `assets/${asset.id}/big.bin`;
    await putObject(big, Buffer.alloc(11, 7));
    const over = await record(small, asset.id, { key: big });
    expect([over.status, over.body.code]).toEqual([409, 'allocation_exceeded']);
    const alloc = (await request(h.queryApp).get(`/api/allocations/${tight.id}/`).set(bearer(small)).expect(200)).body as Allocation;
    expect([alloc.used_bytes, alloc.content_count]).toEqual([0, 0]);
  });

  it('lets a system administrator record any key but another asset’s own objects', async () => {
    const asset = await sharedAsset();
    const other = await createAsset(h, owner);
    await putObject('operator/import/survey.csv', Buffer.from('a,b\n'));
    await putObject(`assets/${other.id}/theirs.bin`, Buffer.from('theirs'));
    expect((await record(admin, asset.id, { key: 'operator/import/survey.csv' })).status).toBe(201);
    const foreign = await record(admin, asset.id, { key: `assets/${other.id}/theirs.bin` });
    expect([foreign.status, Object.keys(foreign.body.errors ?? {})]).toEqual([400, ['key']]);
  });

  it('refuses multipart text fields that are not UTF-8 with 400 parse_error, for uploads and records alike', async () => {
    const asset = await sharedAsset();
    const boundary = 'cairn-boundary';
    const part = (name: string, value: Buffer, filename?: string) =>
      Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n`),
        value,
        Buffer.from('\r\n'),
      ]);
    const send = (parts: Buffer[]) =>
      request(h.commandApp)
        .post(`/api/assets/${asset.id}/content/`)
        .set(bearer(writer))
        .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
        .send(Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]));
    const notUtf8 = Buffer.from([0x6e, 0xff, 0xfe, 0x2e, 0x63, 0x73, 0x76]);
    for (const parts of [[part('filename', notUtf8), part('file', Buffer.from('bytes'), 'b.bin')], [part('key', Buffer.concat([Buffer.from(`assets/${asset.id}/`), notUtf8]))]]) {
      const res = await send(parts);
      expect([res.status, res.body.code]).toEqual([400, 'parse_error']);
    }
    expect(await contents(asset.id)).toEqual([]);
  });
});
