import { flagsOf } from '@cairn/query-api';
import { principalsOf, resourceAccess } from '@cairn/projections';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, setPermissions } from '../assets/assets-fixtures.ts';
import { attachAssets, createCollection, setCollectionPermissions } from '../collections/collections-fixtures.ts';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';

// The feed judges each batch in memory from the read models' grant maps (docs/changes.md):
// those flags must be the ones the asset and collection reads answer, for every kind of
// principal (user, organization, project role, public, collection entries flowing down).

let h: Harness;

beforeAll(async () => {
  h = await startHarness('all');
});
afterAll(async () => {
  await h.close();
});

describe('the feed’s flags', () => {
  it('are the effective flags the reads answer, for every caller and resource', async () => {
    const owner = await h.createUser();
    const member = await h.createUser();
    const viewer = await h.createUser();
    const x = await h.createUser();
    const y = await h.createUser();
    const stranger = await h.createUser();
    const admin = await h.createUser({ admin: true });
    const org = await organization(h, `Feed org ${Date.now()}`);
    await join(h, org, owner, 'admin');
    await join(h, org, member);
    const project = await createProject(h, owner, org, `Feed project ${Date.now()}`);
    await addMember(h, owner, project.id, viewer, 'viewer');

    const top = await createCollection(h, owner, { title: 'Top' });
    const child = await createCollection(h, owner, { title: 'Child', parent_id: top.id });
    await setCollectionPermissions(h, owner, top.id, [{ subject_type: 'organization', subject_id: org, flags: 1 | 16 }]);
    await setCollectionPermissions(h, owner, child.id, [{ subject_type: 'user', subject_id: x.id, flags: 1 | 4 }]);
    const inChild = await createAsset(h, owner, { title: 'In child' });
    await attachAssets(h, owner, child.id, [inChild.id]);
    await setPermissions(h, owner, inChild.id, [{ subject_type: 'user', subject_id: y.id, flags: 1 | 2 }]);
    const projectOwned = await createAsset(h, owner, { title: 'Project owned', owner_type: 'project', owner_id: project.id });
    await setPermissions(h, owner, projectOwned.id, [{ subject_type: 'public', flags: 1 }]);
    const onlyContent = await createAsset(h, owner, { title: 'Content only' });
    await setPermissions(h, owner, onlyContent.id, [{ subject_type: 'user', subject_id: x.id, flags: 8 }]);
    const assets = [inChild.id, projectOwned.id, onlyContent.id];
    const collections = [top.id, child.id];

    const access = await resourceAccess(h.resources.db, assets, collections);
    const compared: string[] = [];
    for (const caller of [owner, member, viewer, x, y, stranger, admin] as User[]) {
      const reader = { isSystemAdmin: caller === admin, principals: await principalsOf(h.resources.db, caller.id) };
      for (const [path, ids, found] of [
        ['assets', assets, access.assets],
        ['collections', collections, access.collections],
      ] as const) {
        for (const id of ids) {
          const mine = flagsOf(found.get(id)?.grants, reader);
          const res = await request(h.queryApp).get(`/api/${path}/${id}/`).set(bearer(caller));
          if (res.status === 404) expect(mine & 1, `${path} ${id}`).toBe(0);
          else {
            expect(res.status).toBe(200);
            expect(mine, `${path} ${id}`).toBe((res.body as { effective_flags: number }).effective_flags);
          }
          compared.push(`${res.status}:${mine}`);
        }
      }
    }
    // Not a comparison of zeros: several callers see several resources with different flags.
    expect(new Set(compared).size).toBeGreaterThan(4);
  });
});
