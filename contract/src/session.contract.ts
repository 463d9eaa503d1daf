import { defineContract } from '@cairn/platform';
import { z } from 'zod';
import { uuid } from './fields.ts';

export const currentSessionSchema = z
  .object({
    user_id: uuid,
    email: z.string(),
    is_system_admin: z.boolean(),
    authenticated_by: z.enum(['bearer', 'session']),
    scopes: z.array(z.string()),
  })
  .meta({ id: 'CurrentSession' });

export const getCurrentSession = defineContract({
  operationId: 'auth_session_retrieve',
  method: 'get',
  path: '/api/auth/session/',
  summary: 'Who the caller is, and how they signed in.',
  tag: 'auth',
  side: 'query',
  authenticated: true,
  responses: { 200: { description: 'The signed-in caller.', schema: currentSessionSchema } },
  readModels: [],
});

export const endCurrentSession = defineContract({
  operationId: 'auth_session_destroy',
  method: 'delete',
  path: '/api/auth/session/',
  summary: 'Sign out everywhere: end every web session of the user (in every service instance) and their sign-in sessions at the OAuth server.',
  tag: 'auth',
  side: 'command',
  authenticated: true,
  responses: { 204: { description: 'Signed out; the session cookie is cleared.', headers: ['Set-Cookie'] } },
  // Sessions end in their tables: no event, so no guard or lost race (no 409).
  appendsEvents: false,
  readModels: [],
});
