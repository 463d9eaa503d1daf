import { projectionsRebuild, projectionsVerify, ReportedFailure } from '@cairn/cli';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions } from '../assets/assets-fixtures.ts';
import { createCollection, attachAssets } from '../collections/collections-fixtures.ts';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { fsRepository, grantAllocation, upload } from '../storage/storage-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let admin: User;
let alice: User;
let bob: User;

/** A bit of everything: identity, an organization, a project, assets, a collection, notes, content, an allocation. */
async function workload(round: number): Promise<void> {
  const asset = await createAsset(h, alice, { title: `Asset ${round}`, tags: ['t', `r${round}`], metadata: { round } });
  await setPermissions(h, alice, asset.id, [{ subject_type: 'user', subject_id: bob.id, flags: 1 | 16 | 32 }]);
  await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(alice)).send({ title: `Asset ${round}, changed` }).expect(200);
  await request(h.commandApp).post(`/api/assets/${asset.id}/star/`).set(bearer(bob)).expect(204);
  await request(h.commandApp).post(`/api/assets/${asset.id}/notes/`).set(bearer(bob)).send({ content: `note ${round}` }).expect(201);
  await request(h.commandApp).put(`/api/assets/${asset.id}/markdown-note/`).set(bearer(alice)).send({ content: `# ${round}` }).expect(201);
  const collection = await createCollection(h, alice, { title: `Collection ${round}` });
  await attachAssets(h, alice, collection.id, [asset.id]);
  const content = await upload(h, alice, asset.id, Buffer.from(`bytes ${round}`));
  expect(content.status).toBe(201);
  if (round % 2 === 0) await request(h.commandApp).delete(`/api/assets/${asset.id}/content/${content.body.id}/`).set(bearer(alice)).expect(204);
}

beforeAll(async () => {
  h = await startHarness('all');
  admin = await h.createUser({ admin: true });
  alice = await h.createUser();
  bob = await h.createUser();
  const org = await organization(h, 'Verifiers');
  await join(h, org, alice, 'admin');
  const project = await createProject(h, alice, org, 'Verified');
  await addMember(h, alice, project.id, bob, 'member');
  const repo = await fsRepository(h, 'verify-repo');
  await grantAllocation(h, admin, { owner_type: 'user', owner_id: alice.id, repository_id: repo.id, limit_bytes: 1_000_000 });
  for (let round = 1; round <= 4; round += 1) await workload(round);
});
afterAll(async () => {
  await h.close();
});

describe('cairn projections verify', () => {
  it('finds no difference between the live read models and a replay of the log', async () => {
    const result = await projectionsVerify(h.resources, []);
    const names = result.verified.map((v) => v.projection);
    expect(names).toEqual(expect.arrayContaining(['identity', 'assets', 'collections', 'asset-notes', 'allocations', 'asset-contents', 'repositories']));
    expect(names).not.toContain('job-outbox');
    for (const v of result.verified) expect(v, JSON.stringify(v.samples)).toMatchObject({ differences: 0 });
    expect(result.verified.find((v) => v.projection === 'assets')?.events).toBeGreaterThan(0);
  });

  it('names the rows that differ, and fails', async () => {
    const asset = await createAsset(h, alice, { title: 'Tampered' });
    await h.resources.pool.query('update assets set title = $1 where id = $2', ['Changed behind the log', asset.id]);
    const failure = await projectionsVerify(h.resources, ['assets']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ReportedFailure);
    const result = (failure as ReportedFailure).result as { verified: { differences: number; samples: { table: string; side: string; row: { id: string; title: string } }[] }[] };
    const [assets] = result.verified;
    expect(assets?.differences).toBe(2);
    expect(assets?.samples).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ table: 'assets', side: 'missing', row: expect.objectContaining({ id: asset.id, title: 'Tampered' }) }),
        expect.objectContaining({ table: 'assets', side: 'extra', row: expect.objectContaining({ id: asset.id, title: 'Changed behind the log' }) }),
      ]),
    );
    await projectionsRebuild(h.resources, ['assets']);
    expect((await projectionsVerify(h.resources, ['assets'])).verified[0]?.differences).toBe(0);
  });

  it('finds no difference after a rebuild under concurrent writes, and no write fails during the swap', async () => {
    let writing = true;
    const failures: number[] = [];
    const writer = (async () => {
      let round = 100;
      while (writing) {
        const res = await request(h.commandApp).post('/api/assets/').set(bearer(alice)).send({ title: `During rebuild ${round}` });
        if (res.status !== 201) failures.push(res.status);
        round += 1;
      }
    })();
    await projectionsRebuild(h.resources, ['assets', 'collections', 'asset-contents', 'allocations']);
    writing = false;
    await writer;
    expect(failures).toEqual([]);
    const result = await projectionsVerify(h.resources, ['assets', 'collections', 'asset-contents', 'allocations']);
    for (const v of result.verified) expect(v.differences).toBe(0);
  });
});
