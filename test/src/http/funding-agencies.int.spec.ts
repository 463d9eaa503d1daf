import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';

const agency = { name: 'National Science Foundation', abbreviation: 'NSF', url: 'https://www.nsf.gov', catalog_id: '021nxhr62' };

describe.each<Shape>(['all', 'split'])('funding agencies over HTTP (%s)', (shape) => {
  let h: Harness;
  let admin: { id: string; token: string };
  let member: { id: string; token: string };
  const write = () => request(h.commandApp);
  const read = () => request(h.queryApp);

  beforeAll(async () => {
    h = await startHarness(shape);
    admin = await h.createUser({ admin: true });
    member = await h.createUser();
  });
  afterAll(async () => h.close());

  it('creates, reads, lists, changes and deletes, reading its own writes at once', async () => {
    const created = await write().post('/api/funding-agencies/').auth(admin.token, { type: 'bearer' }).send(agency).expect(201);
    expect(created.body).toMatchObject(agency);
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(created.body.created_at).toISOString()).toBe(created.body.created_at);
    expect(created.headers['x-consistency-token']).toMatch(/^[0-9a-z]+\.[0-9a-z]+(\.[0-9a-z]+)?$/);
    const id: string = created.body.id;

    // No token sent back: the write already waited for the read models.
    const got = await read().get(`/api/funding-agencies/${id}/`).auth(member.token, { type: 'bearer' }).expect(200);
    expect(got.body).toEqual(created.body);
    const listed = await read().get('/api/funding-agencies/').auth(member.token, { type: 'bearer' }).expect(200);
    expect(listed.body.map((a: { id: string }) => a.id)).toContain(id);

    const patched = await write().patch(`/api/funding-agencies/${id}/`).auth(admin.token, { type: 'bearer' }).send({ abbreviation: 'NSF-US' }).expect(200);
    expect(patched.body).toEqual({ ...created.body, abbreviation: 'NSF-US' });
    const reread = await read().get(`/api/funding-agencies/${id}/`).auth(member.token, { type: 'bearer' }).set('X-Consistency-Token', String(patched.headers['x-consistency-token'])).expect(200);
    expect(reread.body.abbreviation).toBe('NSF-US');

    const deleted = await write().delete(`/api/funding-agencies/${id}/`).auth(admin.token, { type: 'bearer' }).expect(204);
    expect(deleted.text).toBe('');
    await read().get(`/api/funding-agencies/${id}/`).auth(member.token, { type: 'bearer' }).expect(404);
    await write().patch(`/api/funding-agencies/${id}/`).auth(admin.token, { type: 'bearer' }).send({ name: 'x' }).expect(404);
    await write().delete(`/api/funding-agencies/${id}/`).auth(admin.token, { type: 'bearer' }).expect(404);
  });

  it('accepts form-encoded and multipart bodies like JSON', async () => {
    const form = await write()
      .post('/api/funding-agencies/')
      .auth(admin.token, { type: 'bearer' })
      .type('form')
      .send({ name: 'Wellcome Trust', abbreviation: 'WT', url: 'https://wellcome.org' })
      .expect(201);
    expect(form.body).toMatchObject({ name: 'Wellcome Trust', abbreviation: 'WT', url: 'https://wellcome.org', catalog_id: '' });

    const multipart = await write()
      .post('/api/funding-agencies/')
      .auth(admin.token, { type: 'bearer' })
      .field('name', 'European Research Council')
      .field('abbreviation', 'ERC')
      .field('catalog_id', '0472cxd90')
      .expect(201);
    expect(multipart.body).toMatchObject({ name: 'European Research Council', abbreviation: 'ERC', url: '', catalog_id: '0472cxd90' });

    const patched = await write().patch(`/api/funding-agencies/${multipart.body.id}/`).auth(admin.token, { type: 'bearer' }).field('url', 'https://erc.europa.eu').expect(200);
    expect(patched.body.url).toBe('https://erc.europa.eu');
    const formPatched = await write().patch(`/api/funding-agencies/${form.body.id}/`).auth(admin.token, { type: 'bearer' }).type('form').send('abbreviation=Wellcome').expect(200);
    expect(formPatched.body.abbreviation).toBe('Wellcome');
  });

  it('filters the list by a case-insensitive substring of name or abbreviation, ordered by name', async () => {
    const names = ['Zeta Research Fund', 'alpha Grants Agency', 'Mu Council'];
    for (const name of names) await write().post('/api/funding-agencies/').auth(admin.token, { type: 'bearer' }).send({ name, abbreviation: `QX-${name[0]}` }).expect(201);
    const byName = await read().get('/api/funding-agencies/').query({ q: 'GRANTS' }).auth(member.token, { type: 'bearer' }).expect(200);
    expect(byName.body.map((a: { name: string }) => a.name)).toEqual(['alpha Grants Agency']);
    const byAbbreviation = await read().get('/api/funding-agencies/').query({ q: 'qx-' }).auth(member.token, { type: 'bearer' }).expect(200);
    expect(byAbbreviation.body.map((a: { name: string }) => a.name)).toEqual(['alpha Grants Agency', 'Mu Council', 'Zeta Research Fund']);
    const wildcard = await read().get('/api/funding-agencies/').query({ q: '%' }).auth(member.token, { type: 'bearer' }).expect(200);
    expect(wildcard.body).toEqual([]);
    // Each field is matched on its own: a text spanning the end of the name and the abbreviation matches nothing.
    const nameEnd = await read().get('/api/funding-agencies/').query({ q: 'grants agency' }).auth(member.token, { type: 'bearer' }).expect(200);
    expect(nameEnd.body.map((a: { name: string }) => a.name)).toEqual(['alpha Grants Agency']);
    const abbreviationStart = await read().get('/api/funding-agencies/').query({ q: 'QX-a' }).auth(member.token, { type: 'bearer' }).expect(200);
    expect(abbreviationStart.body.map((a: { name: string }) => a.name)).toEqual(['alpha Grants Agency']);
    const spanning = await read().get('/api/funding-agencies/').query({ q: 'Agency QX' }).auth(member.token, { type: 'bearer' }).expect(200);
    expect(spanning.body).toEqual([]);
  });

  it("matches capitals as PostgreSQL lowercases them: a word-final 'Σ' and 'İ' (JavaScript's own lowercase gives 'ς' and two code points)", async () => {
    for (const name of ['ΙΔΡΥΜΑ ΕΡΕΥΝΑΣ', 'İstanbul Kalkınma Ajansı']) await write().post('/api/funding-agencies/').auth(admin.token, { type: 'bearer' }).send({ name }).expect(201);
    for (const [q, name] of [
      ['ΕΡΕΥΝΑΣ', 'ΙΔΡΥΜΑ ΕΡΕΥΝΑΣ'],
      ['ερευνασ', 'ΙΔΡΥΜΑ ΕΡΕΥΝΑΣ'],
      ['İSTANBUL', 'İstanbul Kalkınma Ajansı'],
      ['istanbul', 'İstanbul Kalkınma Ajansı'],
    ]) {
      const found = await read().get('/api/funding-agencies/').query({ q }).auth(member.token, { type: 'bearer' }).expect(200);
      expect(found.body.map((a: { name: string }) => a.name), q).toEqual([name]);
    }
  });

  it('answers a write that changes nothing with a consistency token too', async () => {
    const created = await write().post('/api/funding-agencies/').auth(admin.token, { type: 'bearer' }).send({ name: 'Unchanged' }).expect(201);
    const same = await write().patch(`/api/funding-agencies/${created.body.id}/`).auth(admin.token, { type: 'bearer' }).send({ name: 'Unchanged' }).expect(200);
    // The same log position; the create's token also names its commit's WAL position, which an
    // unchanged resource's last event, read back from the log, does not (docs/consistency.md, "Standbys").
    const logPosition = (token: string) => token.split('.').slice(0, 2).join('.');
    expect(same.headers['x-consistency-token']).toBe(logPosition(String(created.headers['x-consistency-token'])));
  });

  it('ignores unknown and read-only fields', async () => {
    const res = await write()
      .post('/api/funding-agencies/')
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'Read Only Test', id: '00000000-0000-4000-8000-000000000000', created_at: '2000-01-01T00:00:00Z', color: 'blue' })
      .expect(201);
    expect(res.body.id).not.toBe('00000000-0000-4000-8000-000000000000');
    expect(res.body.created_at).not.toBe('2000-01-01T00:00:00.000Z');
    expect(res.body).not.toHaveProperty('color');
  });

  it('lets only system administrators write', async () => {
    const denied = await write().post('/api/funding-agencies/').auth(member.token, { type: 'bearer' }).send(agency).expect(403);
    expect(denied.body).toMatchObject({ status: 403, code: 'permission_denied' });
    const created = await write().post('/api/funding-agencies/').auth(admin.token, { type: 'bearer' }).send(agency).expect(201);
    await write().patch(`/api/funding-agencies/${created.body.id}/`).auth(member.token, { type: 'bearer' }).send({ name: 'x' }).expect(403);
    await write().delete(`/api/funding-agencies/${created.body.id}/`).auth(member.token, { type: 'bearer' }).expect(403);
    await read().get(`/api/funding-agencies/${created.body.id}/`).auth(admin.token, { type: 'bearer' }).expect(200);
  });

  it('answers 401 with WWW-Authenticate for missing or bad credentials', async () => {
    for (const req of [read().get('/api/funding-agencies/'), read().get('/api/funding-agencies/').auth('not-a-real-token', { type: 'bearer' }), write().post('/api/funding-agencies/').set('Authorization', 'Basic abc').send(agency)]) {
      const res = await req.expect(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.body).toMatchObject({ status: 401, code: 'not_authenticated' });
    }
  });

  it('refuses tokens without the needed scope', async () => {
    const readOnly = await h.createUser({ admin: true, scopes: 'read' });
    const res = await write().post('/api/funding-agencies/').auth(readOnly.token, { type: 'bearer' }).send(agency).expect(403);
    expect(res.body.code).toBe('insufficient_scope');
    const writeOnly = await h.createUser({ scopes: 'write' });
    await read().get('/api/funding-agencies/').auth(writeOnly.token, { type: 'bearer' }).expect(403);
  });

  it('validates bodies with field errors in the error shape', async () => {
    const cases: [unknown, string][] = [
      [{ abbreviation: 'X' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'Bad URL', url: 'ftp://example.org' }, 'url'],
      [{ name: 'Bad URL', url: 'not a url' }, 'url'],
      [{ name: 42 }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await write().post('/api/funding-agencies/').auth(admin.token, { type: 'bearer' }).send(body as object).expect(400);
      expect(res.body.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(typeof res.body.detail).toBe('string');
      expect(res.body.errors[field]).toEqual(expect.arrayContaining([expect.any(String)]));
    }
    const noBody = await write().post('/api/funding-agencies/').auth(admin.token, { type: 'bearer' }).expect(400);
    expect(noBody.body.code).toBe('validation_error');
  });

  it('answers bad requests with the error shape, never a 500', async () => {
    const auth = { Authorization: `Bearer ${admin.token}` };
    const badJson = await write().post('/api/funding-agencies/').set(auth).set('Content-Type', 'application/json').send('{"name": ').expect(400);
    expect(badJson.body).toMatchObject({ status: 400, code: 'parse_error' });
    const arrayBody = await write().post('/api/funding-agencies/').set(auth).set('Content-Type', 'application/json').send('[1,2]').expect(400);
    expect(arrayBody.body.code).toBe('parse_error');
    const unsupported = await write().post('/api/funding-agencies/').set(auth).set('Content-Type', 'text/plain').send('name=x').expect(415);
    expect(unsupported.body).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    const huge = await write().post('/api/funding-agencies/').set(auth).send({ name: 'x', abbreviation: 'y'.repeat(2_000_000) }).expect(413);
    expect(huge.body).toMatchObject({ status: 413, code: 'payload_too_large' });
    for (const body of [{ name: 'a\u0000b' }, { name: 'a\ud800b' }, { name: 'ok', abbreviation: ['x\u0000'] }]) {
      const text = await write().post('/api/funding-agencies/').set(auth).send(body).expect(400);
      expect(text.body.code).toBe('validation_error');
    }
    const nulQuery = await read().get('/api/funding-agencies/').set(auth).query({ q: 'a\u0000b' }).expect(400);
    expect(nulQuery.body.errors).toHaveProperty('q');
    const gzipped = await write().post('/api/funding-agencies/').set(auth).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('not gzip at all').expect(400);
    expect(gzipped.body.code).toBe('parse_error');
    // Chunked multipart beyond the limit: no Content-Length to refuse up front.
    const chunked = write().post('/api/funding-agencies/').set(auth).field('name', 'Chunked');
    for (let i = 0; i < 40; i += 1) chunked.field(`extra${i}`, 'z'.repeat(40_000));
    const tooBig = await chunked.expect(413);
    expect(tooBig.body.code).toBe('payload_too_large');
    const badMultipart = await write().post('/api/funding-agencies/').set(auth).set('Content-Type', 'multipart/form-data; boundary=xyz').send('--xyz\r\nbroken').expect(400);
    expect(badMultipart.body.status).toBe(400);
  });

  it('answers unknown paths 404, malformed ids 404, and wrong methods 405 with Allow', async () => {
    const unknown = await read().get('/api/nothing-here/').auth(member.token, { type: 'bearer' }).expect(404);
    expect(unknown.body).toMatchObject({ status: 404, code: 'not_found' });
    await read().get('/api/funding-agencies/not-a-uuid/').auth(member.token, { type: 'bearer' }).expect(404);
    await read().get('/api/funding-agencies/6f1c2d9e-0000-4000-8000-000000000000/').auth(member.token, { type: 'bearer' }).expect(404);
    const put = await write().put('/api/funding-agencies/').auth(admin.token, { type: 'bearer' }).send({}).expect(405);
    expect(put.headers['allow']).toBe('GET, HEAD, POST');
    expect(put.body).toMatchObject({ status: 405, code: 'method_not_allowed' });
    const post = await write().post('/api/funding-agencies/6f1c2d9e-0000-4000-8000-000000000000/').auth(admin.token, { type: 'bearer' }).send({}).expect(405);
    expect(post.headers['allow']).toBe('DELETE, GET, HEAD, PATCH');
    await write().put('/api/funding-agencies/not-a-uuid/').auth(admin.token, { type: 'bearer' }).send({}).expect(404);
    if (shape === 'split') {
      // Bypassing the gateway: a read sent to the command service.
      const misdirected = await write().get('/api/funding-agencies/').auth(admin.token, { type: 'bearer' }).expect(421);
      expect(misdirected.body.code).toBe('misdirected_request');
    }
  });

  it('rejects a malformed consistency token, and at once one beyond the log, which it cannot have issued', async () => {
    const bad = await read().get('/api/funding-agencies/').auth(member.token, { type: 'bearer' }).set('X-Consistency-Token', 'garbage!').expect(400);
    expect(bad.body.code).toBe('invalid_consistency_token');
    const started = Date.now();
    const future = await read().get('/api/funding-agencies/').auth(member.token, { type: 'bearer' }).set('X-Consistency-Token', 'zzzzzzzz.zzzzzzzz').expect(400);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(future.body.code).toBe('invalid_consistency_token');
    // The token of a write just made, through the other service in the split shape, is read at once.
    const created = await write().post('/api/funding-agencies/').auth(admin.token, { type: 'bearer' }).send({ name: 'Token Agency' }).expect(201);
    const token = String(created.headers['x-consistency-token']);
    const got = await read().get(`/api/funding-agencies/${created.body.id}/`).auth(member.token, { type: 'bearer' }).set('X-Consistency-Token', token).expect(200);
    expect(got.body.name).toBe('Token Agency');
  }, 20_000);
});
