import { allContracts } from '@cairn/contract';
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { anonymousRoutes } from './anonymous-routes.ts';

const req = (method: string, path: string) => ({ method, path }) as Request;

describe('the routes that need no token', () => {
  const isAnonymous = anonymousRoutes(allContracts);

  it('are the OAuth server, discovery, the API page and schema, and the unauthenticated operations', () => {
    for (const [method, path] of [
      ['POST', '/oauth/par'],
      ['GET', '/oauth/interaction/abc'],
      ['GET', '/.well-known/openid-configuration'],
      ['GET', '/api/docs/'],
      ['GET', '/api/docs/assets/swagger-ui.css'],
      ['GET', '/api/schema/'],
      ['GET', '/api/schema'],
      ['GET', '/api/permissions/flags/'],
      ['HEAD', '/api/permissions/flags/'],
      ['GET', '/api/assets/0190a5c4-0000-7000-8000-000000000001/content/0190a5c4-0000-7000-8000-000000000002/download/'],
    ]) expect(isAnonymous(req(method ?? '', path ?? '')), `${method} ${path}`).toBe(true);
  });

  it('are not the operations that need a token, nor the probes', () => {
    for (const [method, path] of [
      ['GET', '/api/assets/'],
      ['POST', '/api/permissions/flags/'],
      ['GET', '/api/assets/0190a5c4-0000-7000-8000-000000000001/location/'],
      ['GET', '/api/schemas/'],
      ['GET', '/api/assets/not-a-uuid/content/0190a5c4-0000-7000-8000-000000000002/download/'],
      ['GET', '/healthz'],
      ['GET', '/metrics'],
    ]) expect(isAnonymous(req(method ?? '', path ?? '')), `${method} ${path}`).toBe(false);
  });
});
