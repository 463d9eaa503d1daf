import { tokensIssue, usersCreate } from '@cairn/cli';
import request from 'supertest';
import { expect } from 'vitest';
import type { Harness } from '../support/harness.ts';

export type TestUser = { readonly id: string; readonly email: string; readonly name: string; readonly token: string };

let counter = 0;

/** A user with a chosen name and address (the harness picks its own), with a token. */
export async function createNamedUser(h: Harness, options: { name: string; email?: string; admin?: boolean }): Promise<TestUser> {
  counter += 1;
  const email = options.email ?? `admin-spec-${counter}-${Date.now()}@example.org`;
  const { id } = await usersCreate(h.resources, ['--email', email, '--name', options.name, ...(options.admin ? ['--system-admin'] : [])]);
  const token = await tokensIssue(h.resources, ['--user', id, '--scopes', 'read write']);
  return { id, email, name: options.name, token: token.access_token };
}

export async function createOrganization(h: Harness, admin: { token: string }, body: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
  counter += 1;
  const res = await request(h.commandApp)
    .post('/api/organizations/')
    .auth(admin.token, { type: 'bearer' })
    .send({ name: `Organization ${counter}`, ...body });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string };
}

export async function addMember(h: Harness, admin: { token: string }, userId: string, organizationId: string, role: 'admin' | 'member' = 'member'): Promise<void> {
  await request(h.commandApp)
    .post(`/api/admin/users/${userId}/organizations/`)
    .auth(admin.token, { type: 'bearer' })
    .send({ organization_id: organizationId, role })
    .expect(201);
}
