import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.ts';

describe('the API description', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('all');
  });
  afterAll(async () => h.close());

  it('serves an OpenAPI 3.1 document generated from the request schemas', async () => {
    const res = await request(h.queryApp).get('/api/schema/').expect(200).expect('Content-Type', /application\/json/);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual({ title: 'Console API', version: '1.0.0' });
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['cookieAuthCsrfExempt', 'oauth2']);
    expect(doc.components.securitySchemes.oauth2.flows.authorizationCode.tokenUrl).toBe('http://cairn.test/oauth/token');
    expect(doc.components.securitySchemes.cookieAuthCsrfExempt).toMatchObject({ type: 'apiKey', in: 'cookie' });

    const paths = doc.paths;
    expect(Object.keys(paths['/api/funding-agencies/']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/api/funding-agencies/{id}/']).sort()).toEqual(['delete', 'get', 'patch']);
    const create = paths['/api/funding-agencies/'].post;
    expect(Object.keys(create.requestBody.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
    expect(create.security).toEqual([{ oauth2: ['write'] }, { cookieAuthCsrfExempt: [] }]);
    expect(create.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/FundingAgency' });
    expect(create.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    const agency = doc.components.schemas.FundingAgency;
    expect(Object.keys(agency.properties).sort()).toEqual(['abbreviation', 'catalog_id', 'created_at', 'id', 'name', 'url']);
    const write = doc.components.schemas.FundingAgencyWrite;
    expect(write.properties.name.maxLength).toBe(255);
    expect(write.required).toEqual(['name']);
    const list = paths['/api/funding-agencies/'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(['q', 'X-Consistency-Token']);
  });

  it('serves a browsable page with no external assets', async () => {
    const res = await request(h.queryApp).get('/api/docs/').expect(200).expect('Content-Type', /text\/html/);
    expect(res.text).toContain('Console API');
    expect(res.text).toContain('/api/schema/');
    expect(res.text).not.toMatch(/(src|href)="https?:/);
  });

  it('serves the permission flag bits without credentials', async () => {
    const res = await request(h.queryApp).get('/api/permissions/flags/').expect(200);
    expect(res.body).toEqual({ READ_METADATA: 1, WRITE_METADATA: 2, READ_CONTENT: 4, WRITE_CONTENT: 8, READ_NOTES: 16, WRITE_NOTES: 32, LIST: 64, DELETE: 128, MANAGE: 256 });
  });

  it('serves the OAuth discovery document on the command side', async () => {
    const res = await request(h.commandApp).get('/.well-known/openid-configuration').expect(200);
    expect(res.body.issuer).toBe('http://cairn.test');
    expect(res.body.token_endpoint).toBe('http://cairn.test/oauth/token');
    expect(res.body.code_challenge_methods_supported).toEqual(['S256']);
  });
});
