import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allocationsCreate, allocationsDefault, allocationsList, clientsCreate, clientsList, clientsRevoke, createRepository, tokensRevoke, usersActivate, usersDeactivate, usersList } from '@cairn/cli';
import { DomainError } from '@cairn/domain';
import { issueAccessToken } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../support/api.ts';
import { publicUrl, startHarness, type Harness } from '../support/harness.ts';
import { runCairn } from '../support/processes.ts';

/** The events the command line recorded, as the audit log keeps them. */
async function operatorEvents(h: Harness, type: string) {
  const { rows } = await h.resources.pool.query<{ data: Record<string, unknown>; metadata: { causationId: string; actorId: string | null } }>(
    'select data, metadata from events where type = $1 order by transaction_id, position',
    [type],
  );
  return rows;
}

describe('the operator commands of issue 26', () => {
  let h: Harness;
  let env: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness('all');
    env = { DATABASE_URL: h.databaseUrl, CAIRN_PUBLIC_URL: publicUrl, CAIRN_LOG_LEVEL: 'warn' };
  });
  afterAll(async () => h.close());

  it('lists, deactivates and activates users through the last-administrator guard, audited', async () => {
    const admin = await h.createUser({ admin: true, email: 'only-admin@example.org' });
    const plain = await h.createUser({ email: 'plain@example.org' });
    const listed = await usersList(h.resources, ['--query', 'example.org']);
    expect(listed.users.map((u) => u.email)).toEqual(expect.arrayContaining(['only-admin@example.org', 'plain@example.org']));

    const deactivated = await usersDeactivate(h.resources, ['plain@example.org']);
    expect(deactivated).toMatchObject({ id: plain.id, is_active: false });
    // The identity read model announces the change; credentials caches follow within a second.
    const status = async () => (await request(h.queryApp).get('/api/funding-agencies/').set(bearer(plain))).status;
    await expect.poll(status, { timeout: 2000 }).toBe(401);
    expect((await usersList(h.resources, [])).users.map((u) => u.id)).not.toContain(plain.id);
    expect((await usersList(h.resources, ['--include-deactivated'])).users.map((u) => u.id)).toContain(plain.id);

    expect(await usersActivate(h.resources, [plain.id])).toMatchObject({ is_active: true });
    await expect.poll(status, { timeout: 2000 }).toBe(200);

    // The domain's guard, not a check of the command line's own.
    await expect(usersDeactivate(h.resources, [admin.id])).rejects.toSatisfy((error: unknown) => error instanceof DomainError && error.code === 'last_system_admin');
    const refused = await runCairn(['users', 'deactivate', 'only-admin@example.org'], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^cairn: last_system_admin: /)]);

    const recorded = await operatorEvents(h, 'UserDeactivated');
    expect(recorded).toEqual([{ data: { userId: plain.id }, metadata: expect.objectContaining({ causationId: 'cli:users deactivate', actorId: null }) }]);
  }, 60_000);

  it('grants allocations, lists them and chooses the default, as the owner then sees them', async () => {
    const owner = await h.createUser({ email: 'owner@example.org' });
    await createRepository(h.resources, 'local', { kind: 'fs', path: await mkdtemp(path.join(tmpdir(), 'cairn-cli-alloc-')) });
    const first = await allocationsCreate(h.resources, ['--owner', 'owner@example.org', '--limit', '10GiB']);
    expect(first).toMatchObject({ owner_type: 'user', owner_id: owner.id, limit_bytes: 10 * 2 ** 30, used_bytes: 0, is_default: false });
    const second = await allocationsCreate(h.resources, ['--owner', owner.id, '--repository', 'local', '--limit', '500MB', '--default']);
    expect(second).toMatchObject({ limit_bytes: 500_000_000, is_default: true });

    const listed = await allocationsList(h.resources, ['--owner', 'owner@example.org']);
    expect(listed.allocations.map((a) => [a.id, a.is_default])).toEqual([
      [first.id, false],
      [second.id, true],
    ]);
    expect(await allocationsDefault(h.resources, [first.id])).toMatchObject({ id: first.id, is_default: true });
    const seen = await request(h.queryApp).get('/api/allocations/').set(bearer(owner)).expect(200);
    expect((seen.body as { id: string; is_default: boolean }[]).map((a) => [a.id, a.is_default])).toEqual([
      [first.id, true],
      [second.id, false],
    ]);
    expect((await operatorEvents(h, 'AllocationCreated')).map((e) => e.metadata.causationId)).toEqual(['cli:allocations create', 'cli:allocations create']);

    await expect(allocationsCreate(h.resources, ['--owner', 'owner@example.org', '--limit', '1GB', '--repository', 'nowhere'])).rejects.toThrow(/no repository nowhere/);
    await expect(allocationsCreate(h.resources, ['--owner', 'owner@example.org', '--limit', 'lots'])).rejects.toThrow(/--limit <size>.*must be a number of bytes/);
  }, 60_000);

  it('lists OAuth clients without secrets and revokes one with every token it holds', async () => {
    const made = await clientsCreate(h.resources, ['--name', 'Revocable', '--redirect-uri', 'https://app.example.org/cb']);
    const listed = await clientsList(h.resources, []);
    const entry = listed.clients.find((c) => c.client_id === made.client_id);
    expect(entry).toEqual({ client_id: made.client_id, name: 'Revocable', public: false, redirect_uris: ['https://app.example.org/cb'], grant_types: expect.any(Array), grants: 0, built_in: false });
    expect(JSON.stringify(listed)).not.toContain(String(made.client_secret));

    // A token of that client, as a sign-in through it would have given.
    const user = await h.createUser({ email: 'client-user@example.org' });
    const token = await issueAccessToken(h.resources.oauth, { userId: user.id, scope: 'read', ttlSeconds: 600, clientId: made.client_id });
    await request(h.queryApp).get('/api/funding-agencies/').set(bearer({ token: token.value })).expect(200);
    expect((await clientsList(h.resources, [])).clients.find((c) => c.client_id === made.client_id)?.grants).toBe(1);

    expect(await clientsRevoke(h.resources, [made.client_id])).toEqual({ client_id: made.client_id, revoked: true, grants: 1, access_tokens: 1 });
    await request(h.queryApp).get('/api/funding-agencies/').set(bearer({ token: token.value })).expect(401);
    expect(await h.resources.oauth.provider.Client.find(made.client_id)).toBeUndefined();
    await expect(clientsRevoke(h.resources, [made.client_id])).rejects.toThrow(/no OAuth client/);
    await expect(clientsRevoke(h.resources, ['cairn-cli'])).rejects.toThrow(/built-in/);
    const recorded = await operatorEvents(h, 'OAuthClientRevoked');
    expect(recorded.map((e) => [e.data['clientId'], e.metadata.causationId])).toEqual([[made.client_id, 'cli:clients revoke']]);
    expect((await operatorEvents(h, 'OAuthClientRegistered')).map((e) => e.data['clientId'])).toContain(made.client_id);
  }, 60_000);

  it('revokes a token by its audit digest or its value: refused at once, recorded by digest', async () => {
    const user = await h.createUser({ email: 'holder@example.org' });
    await request(h.queryApp).get('/api/funding-agencies/').set(bearer(user)).expect(200);
    const [issued] = (await operatorEvents(h, 'AccessTokenIssued')).filter((e) => e.data['userId'] === user.id);
    const digest = String(issued?.data['tokenDigest']);
    expect(await tokensRevoke(h.resources, ['--digest', digest])).toEqual({ revoked: true, token_digest: digest, user_id: user.id, client_id: 'cairn-cli', access_tokens: 1 });
    await request(h.queryApp).get('/api/funding-agencies/').set(bearer(user)).expect(401);
    await expect(tokensRevoke(h.resources, ['--digest', digest])).rejects.toThrow(/no such token/);
    const revoked = await operatorEvents(h, 'AccessTokenRevoked');
    expect(revoked).toEqual([{ data: { tokenDigest: digest, userId: user.id, clientId: 'cairn-cli', grantId: expect.any(String) }, metadata: expect.objectContaining({ causationId: 'cli:tokens revoke' }) }]);
    expect(JSON.stringify(revoked)).not.toContain(user.token);

    const other = await h.createUser({ email: 'holder2@example.org' });
    // After `--`: a token may begin with `-` (one in 64 do), which would read as an option.
    const byValue = await runCairn(['tokens', 'revoke', '--', other.token], env);
    expect(byValue.code).toBe(0);
    expect(JSON.parse(byValue.stdout)).toMatchObject({ revoked: true, user_id: other.id });
    // Another process revoked it: this one forgets it within a second (docs/sign-in.md).
    await expect.poll(async () => (await request(h.queryApp).get('/api/funding-agencies/').set(bearer(other))).status, { timeout: 2000 }).toBe(401);
    await expect(tokensRevoke(h.resources, [])).rejects.toThrow(/name the token or its --digest/);
  }, 60_000);
});
