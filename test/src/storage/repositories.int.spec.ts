import path from 'node:path';
import { ensureDefaultRepository, repositoriesCreate, repositoriesList } from '@cairn/cli';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let user: User;

beforeAll(async () => {
  h = await startHarness('all');
  user = await h.createUser();
});
afterAll(async () => {
  await h.close();
});

describe('cairn repositories and GET /api/repositories/', () => {
  it('makes the local fs repository on a first start, once', async () => {
    await ensureDefaultRepository(h.resources);
    await ensureDefaultRepository(h.resources);
    const { repositories } = await repositoriesList(h.resources);
    expect(repositories).toEqual([expect.objectContaining({ name: 'local', kind: 'fs', config: { kind: 'fs', path: path.join(h.resources.config.dataDir, 'content') } })]);
  });

  it('creates fs and s3 repositories that clients list without server paths or credentials', async () => {
    const fs = await repositoriesCreate(h.resources, ['--name', 'scratch', '--kind', 'fs', '--path', '/tmp/cairn-scratch']);
    const s3 = await repositoriesCreate(h.resources, ['--name', 'archive', '--kind', 's3', '--endpoint', 'http://127.0.0.1:9000', '--bucket', 'cairn-archive', '--prefix', '/deep/', '--region', 'eu-west-1']);
    const res = await request(h.queryApp).get('/api/repositories/').set(bearer(user));
    expect(res.status).toBe(200);
    const byName = new Map((res.body as { name: string }[]).map((r) => [r.name, r]));
    expect(byName.get('scratch')).toEqual({ id: fs.id, name: 'scratch', kind: 'fs', created_at: expect.any(String) });
    expect(byName.get('archive')).toEqual({ id: s3.id, name: 'archive', kind: 's3', endpoint: 'http://127.0.0.1:9000', bucket: 'cairn-archive', prefix: 'deep', region: 'eu-west-1', created_at: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain('/tmp/cairn-scratch');
    expect((await request(h.queryApp).get('/api/repositories/')).status).toBe(401);
  });

  it('refuses a duplicate name, an unknown kind, a bad bucket and a missing option, with a reason', async () => {
    await expect(repositoriesCreate(h.resources, ['--name', 'scratch', '--kind', 'fs', '--path', '/tmp/x'])).rejects.toThrow(/exists already/);
    await expect(repositoriesCreate(h.resources, ['--name', 'other', '--kind', 'ftp'])).rejects.toThrow(/--kind must be fs or s3/);
    await expect(repositoriesCreate(h.resources, ['--name', 'bad', '--kind', 's3', '--endpoint', 'http://x', '--bucket', 'No_Such'])).rejects.toThrow(/bucket/);
    await expect(repositoriesCreate(h.resources, ['--name', 'bad name', '--kind', 'fs', '--path', '/tmp/x'])).rejects.toThrow(/repository name/);
    await expect(repositoriesCreate(h.resources, ['--name', 'nopath', '--kind', 'fs'])).rejects.toThrow(/--path is required/);
  });
});
