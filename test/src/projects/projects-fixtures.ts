import { orgsAddMember, orgsCreate } from '@cairn/cli';
import request from 'supertest';
import { expect } from 'vitest';
import { bearer, type CountrySet, type Project, type User } from '../support/api.ts';
import type { Harness } from '../support/harness.ts';

/** DECISIONS.md 2 bits, by project role (docs/projects.md). */
export const flags = { admin: 511, member: 127, viewer: 85 } as const;

/**
 * The operator commands catch the read models up before answering, but a transaction in
 * flight elsewhere (the running projector's) can hide their own event from that catch-up
 * for a moment; the fixtures therefore wait until the read model shows the change.
 */
async function until(h: Harness, sql: string, params: unknown[]): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if ((await h.resources.pool.query(sql, params)).rowCount) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the read model never showed: ${sql} ${JSON.stringify(params)}`);
}

export async function organization(h: Harness, name: string, country?: string): Promise<string> {
  const { id } = await orgsCreate(h.resources, ['--name', name, ...(country ? ['--country', country] : [])]);
  await until(h, 'select 1 from organizations where id = $1', [id]);
  return id;
}

export async function join(h: Harness, organizationId: string, user: User, role: 'admin' | 'member' = 'member'): Promise<void> {
  await orgsAddMember(h.resources, ['--org', organizationId, '--user', user.id, '--role', role]);
  await until(h, 'select 1 from organization_memberships where organization_id = $1 and user_id = $2 and role = $3', [organizationId, user.id, role]);
}

export async function createProject(h: Harness, caller: User, organizationId: string, name: string, description?: string): Promise<Project> {
  const res = await request(h.commandApp)
    .post('/api/projects/')
    .set(bearer(caller))
    .send({ name, organization_id: organizationId, ...(description !== undefined ? { description } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Project;
}

export async function addMember(h: Harness, caller: User, projectId: string, user: User, role: 'admin' | 'member' | 'viewer'): Promise<void> {
  const res = await request(h.commandApp).post(`/api/projects/${projectId}/members/`).set(bearer(caller)).send({ user_id: user.id, role });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

export async function patchProject(h: Harness, caller: User, projectId: string, body: Record<string, unknown>): Promise<Project> {
  const res = await request(h.commandApp).patch(`/api/projects/${projectId}/`).set(bearer(caller)).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Project;
}

export async function createCountrySet(h: Harness, caller: User, organizationId: string, name: string, kind: 'allowed' | 'denied', countries: string[]): Promise<CountrySet> {
  const res = await request(h.commandApp).post('/api/country-sets/').set(bearer(caller)).send({ organization_id: organizationId, name, kind, countries });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as CountrySet;
}

/**
 * One organization and one project with a caller for every standing: the project's
 * creator (its admin), a member, a viewer, an admin of the organization who is not in the
 * project, a plain organization member who is not in it, an outsider and a system
 * administrator who is in neither.
 */
export async function projectWorld(h: Harness, name = 'Glacier Survey', country?: string) {
  const organizationId = await organization(h, `${name} Institute`, country);
  const [projectAdmin, member, viewer, organizationAdmin, organizationMember, outsider, systemAdmin] = [
    await h.createUser(),
    await h.createUser(),
    await h.createUser(),
    await h.createUser(),
    await h.createUser(),
    await h.createUser(),
    await h.createUser({ admin: true }),
  ];
  await join(h, organizationId, projectAdmin);
  await join(h, organizationId, organizationAdmin, 'admin');
  await join(h, organizationId, organizationMember);
  const project = await createProject(h, projectAdmin, organizationId, name);
  await addMember(h, projectAdmin, project.id, member, 'member');
  await addMember(h, projectAdmin, project.id, viewer, 'viewer');
  return { organizationId, project, projectAdmin, member, viewer, organizationAdmin, organizationMember, outsider, systemAdmin };
}
