import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../assets/assets-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { undocumentedAnswers, unreachedStatuses, type DocumentedResponses } from '../support/openapi-drift.ts';

type Parameter = { name: string; in: string; schema: Record<string, unknown>; deprecated?: boolean };
type Response = { headers?: Record<string, { $ref: string }> };
type Operation = { operationId: string; parameters: Parameter[]; requestBody?: unknown; responses: Record<string, Response>; security: unknown[] };
type Document = DocumentedResponses & { paths: Record<string, Record<string, Operation>>; components: { headers: Record<string, { schema: Record<string, unknown> }> } };

/**
 * Issue 25, items 7 and 8: GET /api/schema/ documents every status and header the service
 * answers (docs/api-docs.md). Each test provokes an answer and finds it documented.
 */
describe('the statuses and headers of the OpenAPI document', () => {
  let h: Harness;
  let doc: Document;
  let owner: User;
  let admin: User;
  const operations = () => Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
  const operation = (operationId: string): Operation => {
    const found = operations().find((o) => o.op.operationId === operationId);
    if (!found) throw new Error(`${operationId} is not in the document`);
    return found.op;
  };
  const statuses = (operationId: string) => Object.keys(operation(operationId).responses).map(Number);
  const headers = (operationId: string, status: number) => Object.keys(operation(operationId).responses[String(status)]?.headers ?? {});

  beforeAll(async () => {
    // A small anonymous budget (to meet its 429) and scan cap (to meet X-Scan-Cap-Hit).
    h = await startHarness('all', { CAIRN_ANONYMOUS_REQUESTS_PER_MINUTE: '4', CAIRN_QUERY_SCAN_CAP: '2' });
    doc = (await request(h.queryApp).get('/api/schema/').expect(200)).body as Document;
    [owner, admin] = [await h.createUser(), await h.createUser({ admin: true })];
  });
  afterAll(async () => h.close());

  it('derives the statuses from each operation’s shape: credentials, body, path ids, writes', () => {
    for (const { path, method, op } of operations()) {
      const documented = statuses(op.operationId);
      const name = `${method.toUpperCase()} ${path}`;
      expect(documented, name).toEqual(expect.arrayContaining([400, 401, 503]));
      if (op.security.length > 0) expect(documented, name).toEqual(expect.arrayContaining([403]));
      // A raw body (a direct upload's part) takes any media type; its signature is its credential, outside the anonymous budget.
      const raw = JSON.stringify(op.requestBody ?? {}).includes('application/octet-stream');
      if (op.requestBody) expect(documented, name).toEqual(expect.arrayContaining(raw ? [413] : [413, 415]));
      if (raw) expect(documented, name).not.toContain(429);
      if (path.includes('{')) expect(documented, name).toEqual(expect.arrayContaining([404]));
      if (op.security.length === 0 && !raw) expect(documented, name).toEqual(expect.arrayContaining([429]));
      expect(headers(op.operationId, 401), name).toContain('WWW-Authenticate');
      expect(headers(op.operationId, 503), name).toContain('Retry-After');
      for (const status of documented.filter((s) => s === 201)) expect(headers(op.operationId, status), name).toContain('Location');
      // Writes (the `write` scope) answer the position of what they wrote.
      if (JSON.stringify(op.security).includes('"write"')) {
        for (const status of documented.filter((s) => s >= 200 && s < 300)) expect(headers(op.operationId, status), name).toContain('X-Consistency-Token');
      }
    }
    // Reads with a body (not writes) still refuse a large or unknown body.
    expect(statuses('assets_query')).toEqual(expect.arrayContaining([413, 415]));
    // Writes answer 409 (guards, lost races, a key still running); sign-out appends no event and takes no key.
    expect(statuses('assets_partial_update')).toContain(409);
    expect(statuses('auth_session_destroy')).not.toContain(409);
  });

  it('documents 423 where a locked asset refuses the write, and the write answers it', async () => {
    const asset = await createAsset(h, owner);
    await request(h.commandApp).post(`/api/assets/${asset.id}/lock/`).set(bearer(owner)).send({ locked: true }).expect(200);
    await request(h.commandApp).patch(`/api/assets/${asset.id}/`).set(bearer(owner)).send({ title: 'x' }).expect(423);
    await request(h.commandApp).delete(`/api/assets/${asset.id}/`).set(bearer(owner)).expect(423);
    for (const id of ['assets_partial_update', 'assets_destroy', 'assets_content_create', 'assets_content_destroy', 'assets_migrations_create', 'assets_migrations_retry_create', 'assets_relationships_create', 'assets_relationships_destroy']) {
      expect(statuses(id), id).toContain(423);
    }
    // The lock itself, notes and stars are allowed while locked: no 423 there.
    for (const id of ['assets_lock_create', 'assets_notes_create', 'assets_star_create']) expect(statuses(id), id).not.toContain(423);
  });

  it('documents 404 on bulk merge and intersection naming an unknown asset, and on the admin list past its last page', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const merge = await request(h.commandApp).post('/api/assets/permissions/bulk-merge/').set(bearer(owner)).send({ asset_ids: [unknown], permissions: [] });
    expect(merge.status).toBe(404);
    const shared = await request(h.queryApp).post('/api/assets/permissions/intersection/').set(bearer(owner)).send({ asset_ids: [unknown] });
    expect(shared.status).toBe(404);
    await request(h.queryApp).get('/api/admin/users/?page=9999').set(bearer(admin)).expect(404);
    for (const id of ['assets_permissions_bulk_merge', 'assets_permissions_intersection', 'admin_users_list']) expect(statuses(id), id).toContain(404);
  });

  it('documents 429 with Retry-After on routes that need no token, and answers it past their budget', async () => {
    let res = await request(h.queryApp).get('/api/permissions/flags/');
    for (let i = 0; i < 10 && res.status !== 429; i += 1) res = await request(h.queryApp).get('/api/permissions/flags/');
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // The budget is the address's, whichever route: a download link is refused alike.
    const link = await request(h.queryApp).get(`/api/assets/${randomUUID()}/content/${randomUUID()}/download/?expires=1&signature=x`);
    expect(link.status).toBe(429);
    for (const id of ['permissions_flags', 'assets_content_download_retrieve']) expect(headers(id, 429), id).toEqual(expect.arrayContaining(['Retry-After', 'Cache-Control']));
    // The costly reads' bound per caller (docs/asset-query.md).
    for (const id of ['assets_list', 'assets_query']) expect(headers(id, 429), id).toContain('Retry-After');
  });

  it('documents the page headers the listings send, typed', async () => {
    await createAsset(h, owner, { title: 'page one' });
    await createAsset(h, owner, { title: 'page two' });
    const res = await request(h.queryApp).get('/api/assets/?limit=1').set(bearer(owner)).expect(200);
    expect(res.headers).toMatchObject({ 'x-page-limit': '1', 'x-has-more': 'true', 'x-next-cursor': expect.any(String) });
    for (const id of ['assets_list', 'assets_query', 'collections_list', 'collections_assets_list', 'admin_audit_list']) {
      expect(headers(id, 200), id).toEqual(expect.arrayContaining(['X-Page-Limit', 'X-Has-More', 'X-Next-Cursor']));
    }
    expect(doc.components.headers['X-Page-Limit']?.schema).toMatchObject({ type: 'integer', minimum: 1 });
    expect(doc.components.headers['X-Has-More']?.schema).toMatchObject({ enum: ['true', 'false'] });
    expect(doc.components.headers['X-Scan-Scanned']?.schema).toMatchObject({ type: 'integer' });
    expect(operation('assets_list').responses['200']?.headers?.['X-Page-Limit']).toEqual({ $ref: '#/components/headers/X-Page-Limit' });
  });

  it('documents the post-filter headers the structured query sends', async () => {
    // Newest first: the two newest do not match, and the cap (2) stops the scan before the third.
    // (Under `or`: a range alone walks the path's numbers, with no post-filter.)
    for (const size of [1, 2, 3]) await createAsset(h, owner, { title: `sized ${size}`, metadata: { size } });
    const res = await request(h.queryApp).post('/api/assets/query/?limit=1').set(bearer(owner)).send({ where: { or: [{ field: 'metadata.size', op: 'lt', value: 2 }] } }).expect(200);
    expect(res.headers['x-post-filter']).toBe('true');
    expect(res.headers['x-scan-cap-hit']).toBe('true');
    expect(headers('assets_query', 200)).toEqual(expect.arrayContaining(['X-Post-Filter', 'X-Scan-Cap-Hit', 'X-Scan-Scanned']));
  });

  it('documents X-Consistency-Token and Idempotent-Replayed on writes, Location on creates', async () => {
    const key = `k-${Date.now()}`;
    const first = await request(h.commandApp).post('/api/assets/').set(bearer(owner)).set('Idempotency-Key', key).send({ title: 'once' }).expect(201);
    const again = await request(h.commandApp).post('/api/assets/').set(bearer(owner)).set('Idempotency-Key', key).send({ title: 'once' }).expect(201);
    expect(first.headers['location']).toBe(`/api/assets/${(first.body as { id: string }).id}/`);
    expect(first.headers['x-consistency-token']).toEqual(expect.any(String));
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(headers('assets_create', 201)).toEqual(expect.arrayContaining(['Location', 'X-Consistency-Token', 'Idempotent-Replayed']));
    expect(headers('assets_create', 409)).toContain('Retry-After');
  });

  it('types `limit` as an integer and `locked` as a boolean, from the schemas the route validates with', async () => {
    const params = (id: string) => new Map(operation(id).parameters.map((p) => [p.name, p]));
    const list = params('assets_list');
    expect(list.get('limit')?.schema).toMatchObject({ type: 'integer', default: 100 });
    expect(list.get('locked')?.schema).toMatchObject({ type: 'boolean' });
    for (const id of ['assets_query', 'collections_list', 'collections_assets_list']) expect(params(id).get('limit')?.schema, id).toMatchObject({ type: 'integer' });
    // The route still reads the text: clamped, the spellings of a boolean, and a 400 naming the field otherwise.
    const big = await request(h.queryApp).get('/api/assets/?limit=5000&locked=YES').set(bearer(owner)).expect(200);
    expect(big.headers['x-page-limit']).toBe('1000');
    const bad = await request(h.queryApp).get('/api/assets/?limit=ten&locked=maybe').set(bearer(owner)).expect(400);
    expect(Object.keys((bad.body as { errors: Record<string, string[]> }).errors).sort()).toEqual(['limit', 'locked']);
  });

  it('documents If-Match where a stale one answers 412', async () => {
    const created = await request(h.commandApp).post('/api/collections/').set(bearer(owner)).send({ title: 'versioned' }).expect(201);
    const { id, provenance_token: stale } = created.body as { id: string; provenance_token: string };
    await request(h.commandApp).patch(`/api/collections/${id}/`).set(bearer(owner)).set('If-Match', `"${stale}"`).send({ title: 'first' }).expect(200);
    await request(h.commandApp).patch(`/api/collections/${id}/`).set(bearer(owner)).set('If-Match', `"${stale}"`).send({ title: 'second' }).expect(412);
    expect(statuses('collections_partial_update')).toContain(412);
    expect(operation('collections_partial_update').parameters.find((p) => p.name === 'If-Match')).toMatchObject({ in: 'header', schema: { type: 'string' } });
  });

  it('marks the asset list’s `ordering` deprecated, and only that one', () => {
    expect(operation('assets_list').parameters.find((p) => p.name === 'ordering')?.deprecated).toBe(true);
    // The collection's asset listing orders by it (interface 4.4).
    expect(operation('collections_assets_list').parameters.find((p) => p.name === 'ordering')?.deprecated).toBeUndefined();
    expect(operations().flatMap(({ op }) => op.parameters.filter((p) => p.deprecated).map((p) => `${op.operationId} ${p.name}`))).toEqual(['assets_list ordering']);
  });

  it('finds what a document misses, and what no test reached', () => {
    const seen = ['assets_list 200 -', 'assets_list 200 x-page-limit', 'assets_list 200 x-unknown', 'assets_list 418 -', 'nothing_such 200 -'];
    expect(undocumentedAnswers(seen, doc)).toEqual(['assets_list 200 x-unknown', 'assets_list 418', 'nothing_such 200']);
    const unreached = unreachedStatuses(seen, doc);
    expect(unreached).toContain('assets_list 400');
    expect(unreached).not.toContain('assets_list 200');
  });
});
