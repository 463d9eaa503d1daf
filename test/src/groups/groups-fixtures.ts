import { orgsAddMember, orgsCreate } from '@cairn/cli';
import { membersGroupId } from '@cairn/projections';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { expect } from 'vitest';
import { bearer, type Group, type User } from '../support/api.ts';
import type { Harness } from '../support/harness.ts';

/**
 * Writes wait for the read models (DECISIONS.md 5) at most this long before answering 503.
 * The test server is shared with other runs whose open transactions can hold the log's
 * read horizon back for seconds; these tests check groups, not that bound.
 */
export const patientReads = { CAIRN_CONSISTENCY_TIMEOUT_MS: '15000' };

/** An organization with an admin and a plain member, made with the operator commands. */
export async function organizationWith(h: Harness, name: string) {
  const { id } = await orgsCreate(h.resources, ['--name', name]);
  const admin = await h.createUser();
  const member = await h.createUser();
  await orgsAddMember(h.resources, ['--org', id, '--user', admin.id, '--role', 'admin']);
  await orgsAddMember(h.resources, ['--org', id, '--user', member.id]);
  await settle(h);
  return { id, admin, member, membersGroupId: membersGroupId(id) };
}

export async function newUser(h: Harness, options: { admin?: boolean; scopes?: string } = {}): Promise<User> {
  const user = await h.createUser(options);
  await settle(h);
  return user;
}

export async function join(h: Harness, organizationId: string, user: User, role: 'admin' | 'member' = 'member') {
  await orgsAddMember(h.resources, ['--org', organizationId, '--user', user.id, '--role', role]);
  await settle(h);
}

/**
 * Waits until the read models these tests read (identity and groups) have applied every
 * event stored so far. The operator
 * commands catch up before they answer, but only with what readers may already see: an
 * open transaction anywhere on the server (other test files) holds that horizon back.
 */
export async function settle(h: Harness) {
  const { rows } = await h.resources.pool.query<{ major: string; minor: string }>(
    'select events.transaction_id::text as major, events.position::text as minor from events order by events.transaction_id desc, events.position desc limit 1',
  );
  const last = rows[0];
  if (!last) return;
  const caughtUp = await h.resources.waiter.waitFor({ major: BigInt(last.major), minor: BigInt(last.minor) }, ['identity', 'groups'], 20_000);
  expect(caughtUp).toBe(true);
}

/**
 * Appends organization events straight to the organization's stream (for the event types
 * whose commands the organization aggregate may not offer yet), then brings every read
 * model up to date, as a write through the API would before answering.
 */
export async function appendOrganizationEvents(h: Harness, organizationId: string, events: readonly { type: string; data: unknown }[]) {
  const metadata = { actorId: null, requestId: null, correlationId: randomUUID(), causationId: 'test:groups', occurredAt: new Date().toISOString() };
  await h.resources.eventStore.appendToStream(
    `organization-${organizationId}`,
    events.map((e) => ({ id: randomUUID(), type: e.type, schemaVersion: 1, data: e.data, metadata })),
    { expectedVersion: 'any' },
  );
  await settle(h);
}

export async function createGroup(h: Harness, caller: User, organizationId: string, name: string, description?: string): Promise<Group> {
  const res = await request(h.commandApp)
    .post('/api/groups/')
    .set(bearer(caller))
    .send({ organization_id: organizationId, name, ...(description !== undefined ? { description } : {}) });
  expect(res.status).toBe(201);
  return res.body as Group;
}

export async function addToGroup(h: Harness, caller: User, groupId: string, userId: string) {
  await request(h.commandApp).post(`/api/groups/${groupId}/members/`).set(bearer(caller)).send({ user_id: userId }).expect(201);
}

export async function memberIds(h: Harness, caller: User, groupId: string): Promise<string[]> {
  const res = await request(h.queryApp).get(`/api/groups/${groupId}/members/`).set(bearer(caller)).expect(200);
  return (res.body as { id: string }[]).map((m) => m.id).sort();
}

export async function getGroup(h: Harness, caller: User, groupId: string): Promise<Group> {
  const res = await request(h.queryApp).get(`/api/groups/${groupId}/`).set(bearer(caller)).expect(200);
  return res.body as Group;
}

/** Every stored member_count equals the number of member rows of its group. */
export async function expectExactMemberCounts(h: Harness) {
  const { rows } = await h.resources.pool.query<{ id: string; member_count: number; actual: number }>(
    `select g.id, g.member_count, (select count(*)::int from group_members m where m.group_id = g.id) as actual
       from groups g where g.member_count <> (select count(*) from group_members m where m.group_id = g.id)`,
  );
  expect(rows).toEqual([]);
}

export const sorted = (ids: readonly string[]) => [...ids].sort();
