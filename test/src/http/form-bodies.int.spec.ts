import request, { type Response, type Test } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, type Asset } from '../assets/assets-fixtures.ts';
import { createCollection, type Collection } from '../collections/collections-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { formSpellings, json, malformedSpellings, type Spelling } from './form-spellings.ts';

/**
 * DECISIONS.md 8: form bodies (urlencoded and multipart) carry objects and lists of objects
 * as JSON text, and lists of ids as JSON text or repeated fields; every such route answers
 * a form as it answers the same body in JSON (docs/http.md, "Forms"). Before, permission
 * replace, bulk merge and the structured query refused every form spelling.
 */
describe('form bodies', () => {
  let h: Harness;
  let owner: User;
  let friend: User;
  let a: Asset;
  let b: Asset;
  let collection: Collection;
  const app = () => request(h.commandApp);
  const as = (req: Test) => req.set(bearer(owner));
  const entries = () => [
    { subject_type: 'user', subject_id: friend.id, flags: 3 },
    { subject_type: 'public', flags: 1 },
  ];

  beforeAll(async () => {
    h = await startHarness('all');
    [owner, friend] = [await h.createUser(), await h.createUser()];
    a = await createAsset(h, owner, { title: 'Form A', tags: ['form-test'] });
    b = await createAsset(h, owner, { title: 'Form B', tags: ['form-test', 'second'] });
    collection = await createCollection(h, owner, { title: 'Form collection' });
  });
  afterAll(async () => h.close());

  /** The answer to `body` in JSON, then in every form spelling, each after `reset`; all must agree. */
  async function sameInEveryEncoding(send: (s: Spelling) => Promise<Response>, observe: (res: Response) => Promise<unknown>, reset?: () => Promise<void>) {
    await reset?.();
    const expected = await send(json);
    expect(expected.status, JSON.stringify(expected.body)).toBeLessThan(300);
    const seen = await observe(expected);
    for (const spelling of formSpellings) {
      await reset?.();
      const res = await send(spelling);
      expect(res.status, `${spelling.name}: ${JSON.stringify(res.body)}`).toBe(expected.status);
      expect(await observe(res), spelling.name).toEqual(seen);
    }
    return seen;
  }

  const permissionsOf = async (path: string) => (await as(app().get(path)).expect(200)).body as unknown[];
  const clearPermissions = (path: string) => async () => {
    await as(app().put(path)).send({ permissions: [] }).expect(200);
  };

  it('asset and collection permission replace', async () => {
    for (const path of [`/api/assets/${a.id}/permissions/`, `/api/collections/${collection.id}/permissions/`]) {
      const seen = await sameInEveryEncoding(
        (s) => s.send(as(app().put(path)), { permissions: entries() }),
        async (res) => [res.body, await permissionsOf(path)],
        clearPermissions(path),
      );
      expect((seen as unknown[][])[1]).toHaveLength(2);
    }
  });

  it('bulk merge and intersection', async () => {
    const paths = [a, b].map((x) => `/api/assets/${x.id}/permissions/`);
    const seen = await sameInEveryEncoding(
      (s) => s.send(as(app().post('/api/assets/permissions/bulk-merge/')), { asset_ids: [a.id, b.id], permissions: entries() }),
      async () => Promise.all(paths.map(permissionsOf)),
      async () => {
        for (const path of paths) await clearPermissions(path)();
      },
    );
    expect((seen as unknown[][]).map((list) => list.length)).toEqual([2, 2]);
    const intersection = await sameInEveryEncoding(
      (s) => s.send(as(app().post('/api/assets/permissions/intersection/')), { asset_ids: [a.id, b.id] }),
      async (res) => res.body,
    );
    expect(intersection).toHaveLength(2);
  });

  it('the structured query', async () => {
    const where = { and: [{ field: 'tags', op: 'contains', value: 'form-test' }, { not: { field: 'title', op: 'eq', value: 'Form A' } }] };
    const found = await sameInEveryEncoding(
      (s) => s.send(as(app().post('/api/assets/query/')), { where }),
      async (res) => (res.body as Asset[]).map((x) => x.id),
    );
    expect(found).toEqual([b.id]);
  });

  it('asset create and patch with metadata', async () => {
    const metadata = { site: { name: 'Moraine', depth: [1, 2.5] }, sampled: true };
    const created = await sameInEveryEncoding(
      (s) => s.send(as(app().post('/api/assets/')), { title: 'With metadata', tags: ['one', 'two'], metadata }),
      async (res) => {
        const { metadata: m, tags, title } = res.body as Asset;
        return { metadata: m, tags, title };
      },
    );
    expect(created).toEqual({ metadata, tags: ['one', 'two'], title: 'With metadata' });
    const patched = await sameInEveryEncoding(
      (s) => s.send(as(app().patch(`/api/assets/${a.id}/`)), { metadata: { replaced: { by: 'a form' } } }),
      async (res) => (res.body as Asset).metadata,
      async () => {
        await as(app().patch(`/api/assets/${a.id}/`)).send({ metadata: {} }).expect(200);
      },
    );
    expect(patched).toEqual({ replaced: { by: 'a form' } });
  });

  it('collection attach', async () => {
    const attached = await sameInEveryEncoding(
      (s) => s.send(as(app().post(`/api/collections/${collection.id}/assets/`)), { asset_ids: [a.id, b.id] }),
      async () => ((await as(app().get(`/api/collections/${collection.id}/assets/`)).expect(200)).body as Asset[]).map((x) => x.id).sort(),
      async () => {
        for (const x of [a, b]) await as(app().delete(`/api/collections/${collection.id}/assets/${x.id}/`));
      },
    );
    expect(attached).toEqual([a.id, b.id].sort());
  });

  it('malformed JSON text in a field is 400 naming the field', async () => {
    const cases: [string, () => Test, Record<string, string>, string][] = [
      ['PUT asset permissions', () => app().put(`/api/assets/${a.id}/permissions/`), { permissions: '[{"subject_type":"public","flags":1}' }, 'permissions'],
      ['PUT collection permissions', () => app().put(`/api/collections/${collection.id}/permissions/`), { permissions: '{"subject_type":' }, 'permissions'],
      ['bulk merge', () => app().post('/api/assets/permissions/bulk-merge/'), { asset_ids: a.id, permissions: '[{]' }, 'permissions'],
      ['bulk merge ids', () => app().post('/api/assets/permissions/bulk-merge/'), { asset_ids: `["${a.id}"`, permissions: '[]' }, 'asset_ids'],
      ['intersection', () => app().post('/api/assets/permissions/intersection/'), { asset_ids: `["${a.id}",]` }, 'asset_ids'],
      ['query', () => app().post('/api/assets/query/'), { where: '{"field": "title"' }, 'where'],
      ['asset create', () => app().post('/api/assets/'), { title: 't', metadata: '{site: 1}' }, 'metadata'],
      ['asset patch', () => app().patch(`/api/assets/${a.id}/`), { metadata: "{'a': 1}" }, 'metadata'],
      ['collection attach', () => app().post(`/api/collections/${collection.id}/assets/`), { asset_ids: '[' }, 'asset_ids'],
    ];
    for (const [name, route, fields, field] of cases) {
      for (const spelling of malformedSpellings) {
        const res = await spelling.send(as(route()), fields);
        expect(res.status, `${name} (${spelling.name}): ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body, `${name} (${spelling.name})`).toMatchObject({ status: 400, code: 'validation_error', errors: { [field]: [expect.stringMatching(/JSON/)] } });
      }
    }
  });
});
