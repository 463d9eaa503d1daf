import { usersCreate } from '@cairn/cli';
import { operatorActor } from '@cairn/domain';
import { defaultAllocationId, grantDefaultAllocation } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { fsRepository, upload, type Allocation, type Content } from './storage-fixtures.ts';

/**
 * Issue 26: new users receive CAIRN_DEFAULT_ALLOCATION_BYTES on the repository named by
 * CAIRN_DEFAULT_ALLOCATION_REPOSITORY, once ever (docs/storage.md).
 */

const allocationsOf = (h: Harness, caller: User, ownerId: string) => request(h.queryApp).get('/api/allocations/').query({ owner_id: ownerId }).set(bearer(caller));
const metadata = { requestId: null, correlationId: 'default-allocation-test', causationId: null };

describe('the default allocation, turned on', () => {
  let h: Harness;
  let admin: User;
  /** Registered before the named repository existed: nothing could be granted then. */
  let early: User;
  let repo: { id: string; dir: string };

  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_DEFAULT_ALLOCATION_BYTES: '1000', CAIRN_DEFAULT_ALLOCATION_REPOSITORY: 'primary' });
    admin = await h.createUser({ admin: true });
    early = await h.createUser();
    await fsRepository(h, 'elsewhere');
    repo = await fsRepository(h, 'primary');
  });
  afterAll(async () => {
    await h.close();
  });

  it('lets a new user upload at once, on the configured repository, within the configured limit', async () => {
    const user = await h.createUser();
    const [allocation] = (await allocationsOf(h, user, user.id).expect(200)).body as Allocation[];
    expect(allocation).toMatchObject({ id: defaultAllocationId(user.id), owner_type: 'user', owner_id: user.id, repository_id: repo.id, limit_bytes: 1000, used_bytes: 0 });

    const asset = await createAsset(h, user);
    const stored = await upload(h, user, asset.id, Buffer.alloc(600, 1));
    expect(stored.status, JSON.stringify(stored.body)).toBe(201);
    expect(stored.body as Content).toMatchObject({ allocation_id: allocation?.id, repository_id: repo.id, size: 600 });
    const past = await upload(h, user, asset.id, Buffer.alloc(401, 2));
    expect(past.status).toBe(409);
    expect(past.body.code).toBe('allocation_exceeded');
  });

  it('grants one allocation however often it is asked, and a second registration of the address adds none', async () => {
    const user = await h.createUser();
    const grant = { repositoryId: repo.id, limitBytes: 1000 };
    const again = await Promise.all(Array.from({ length: 5 }, () => grantDefaultAllocation(h.resources.eventStore, user.id, grant, { actor: operatorActor, now: new Date().toISOString() }, metadata)));
    expect(again).toEqual([null, null, null, null, null]);
    await expect(usersCreate(h.resources, ['--email', user.email, '--name', 'Twice'])).rejects.toThrow(/e-mail/);
    expect(((await allocationsOf(h, admin, user.id).expect(200)).body as Allocation[]).map((a) => a.id)).toEqual([defaultAllocationId(user.id)]);
    const { rows } = await h.resources.pool.query<{ n: string }>("select count(*) as n from events where stream_id = $1 and type = 'AllocationCreated'", [`allocation-${defaultAllocationId(user.id)}`]);
    expect(rows[0]?.n).toBe('1');
  });

  it('grants a user registered before it on their first upload, once, and not again after an administrator deleted it', async () => {
    expect((await allocationsOf(h, admin, early.id).expect(200)).body).toEqual([]);
    const asset = await createAsset(h, early);
    const first = await upload(h, early, asset.id, Buffer.from('first'));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.allocation_id).toBe(defaultAllocationId(early.id));
    const second = await upload(h, early, asset.id, Buffer.from('second'));
    expect(second.body.allocation_id).toBe(defaultAllocationId(early.id));
    expect(((await allocationsOf(h, admin, early.id)).body as Allocation[]).map((a) => [a.limit_bytes, a.content_count])).toEqual([[1000, 2]]);

    // Its granting is recorded as the service's, caused by the upload's request.
    const { rows } = await h.resources.pool.query<{ actor: string | null }>("select metadata->>'actorId' as actor from events where stream_id = $1 and type = 'AllocationCreated'", [`allocation-${defaultAllocationId(early.id)}`]);
    expect(rows[0]).toEqual({ actor: null });

    const someone = await h.createUser();
    const deleted = await request(h.commandApp).delete(`/api/allocations/${defaultAllocationId(someone.id)}/`).set(bearer(admin));
    expect(deleted.status).toBe(204);
    const refused = await upload(h, someone, (await createAsset(h, someone)).id, Buffer.from('x'));
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('no_allocation');
  });

  it('grants nothing for an upload that names another repository', async () => {
    const user = await h.createUser();
    const other = await fsRepository(h, 'third');
    const refused = await upload(h, user, (await createAsset(h, user)).id, Buffer.from('x'), { repositoryId: other.id });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('no_allocation');
    expect(((await allocationsOf(h, admin, user.id)).body as Allocation[]).map((a) => a.repository_id)).toEqual([repo.id]);
  });
});

describe('the default allocation, turned off with 0', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_DEFAULT_ALLOCATION_BYTES: '0' });
    await fsRepository(h, 'local');
  });
  afterAll(async () => {
    await h.close();
  });

  it('grants nothing: a new user has no allocation and an upload is 409 no_allocation, as before', async () => {
    const user = await h.createUser();
    expect((await allocationsOf(h, user, user.id).expect(200)).body).toEqual([]);
    const refused = await upload(h, user, (await createAsset(h, user)).id, Buffer.from('x'));
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('no_allocation');
  });
});
