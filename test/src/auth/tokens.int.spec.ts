import { allContracts } from '@cairn/contract';
import { issueAccessToken, requiredScope } from '@cairn/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';

const anyId = '0b7e3f9a-5d2c-4e8f-9a1b-2c3d4e5f6a7b';

describe('bearer tokens', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('all');
  });
  afterAll(async () => h.close());

  it('refuses an expired token', async () => {
    const user = await h.createUser();
    const token = await issueAccessToken(h.resources.oauth, { userId: user.id, scope: 'read write', ttlSeconds: 2, clientId: 'cairn-cli' });
    await request(h.queryApp).get('/api/auth/session/').auth(token.value, { type: 'bearer' }).expect(200);
    await new Promise((r) => setTimeout(r, 2_300));
    const expired = await request(h.queryApp).get('/api/auth/session/').auth(token.value, { type: 'bearer' }).expect(401);
    expect(expired.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('refuses a token issued for another audience', async () => {
    const user = await h.createUser();
    const token = await issueAccessToken(h.resources.oauth, { userId: user.id, scope: 'read write', ttlSeconds: 60, clientId: 'cairn-cli', audience: 'https://other.example/api/' });
    await request(h.queryApp).get('/api/auth/session/').auth(token.value, { type: 'bearer' }).expect(401);
  });

  it('enforces scopes on every route of the interface: no read, no reads; no write, no writes', async () => {
    const readOnly = await h.createUser({ admin: true, scopes: 'read' });
    const writeOnly = await h.createUser({ admin: true, scopes: 'write' });
    const checked: string[] = [];
    for (const contract of allContracts.filter((c) => c.authenticated)) {
      const path = contract.path.replace(/\{\w+\}/g, anyId);
      const lacking = requiredScope(contract) === 'read' ? writeOnly : readOnly;
      const agent = request(contract.side === 'query' ? h.queryApp : h.commandApp);
      const response = await agent[contract.method](path)
        .auth(lacking.token, { type: 'bearer' })
        .send(contract.body ? {} : undefined);
      expect({ operation: contract.operationId, status: response.status, code: response.body.code }).toEqual({ operation: contract.operationId, status: 403, code: 'insufficient_scope' });
      checked.push(contract.operationId);
    }
    expect(checked.length).toBeGreaterThanOrEqual(7);
  });

  it('serves the discovery document with the flows and endpoints', async () => {
    const discovery = (await request(h.commandApp).get('/.well-known/openid-configuration').expect(200)).body;
    expect(discovery).toMatchObject({
      issuer: 'http://cairn.test',
      authorization_endpoint: 'http://cairn.test/oauth/authorize',
      token_endpoint: 'http://cairn.test/oauth/token',
      device_authorization_endpoint: 'http://cairn.test/oauth/device/auth',
      revocation_endpoint: 'http://cairn.test/oauth/revoke',
      introspection_endpoint: 'http://cairn.test/oauth/introspect',
      code_challenge_methods_supported: ['S256'],
    });
    expect(discovery.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']));
    expect(discovery.scopes_supported).toEqual(expect.arrayContaining(['openid', 'read', 'write']));
  });
});
