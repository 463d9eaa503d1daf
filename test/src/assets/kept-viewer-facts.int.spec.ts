import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeptViewerFacts } from '@cairn/query-api';
import { createOpsApp } from '@cairn/cli';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';
import { createGroup, organizationWith, patientReads } from '../groups/groups-fixtures.ts';
import { createProject, patchProject } from '../projects/projects-fixtures.ts';
import { createCollection, setCollectionPermissions } from '../collections/collections-fixtures.ts';

const ip = { DE: '80.128.0.1', US: '8.8.8.8' } as const;

/**
 * A query process keeps each caller's listing facts (principals, whether a project is
 * restricted) for a few seconds, and every statement that uses them checks them in its own
 * snapshot (docs/assets.md, "The caller's facts, kept"): a change of who the caller is
 * shows in the very next page, over every shape of page statement.
 */
describe("the caller's kept facts", () => {
  let h: Harness;
  let org: Awaited<ReturnType<typeof organizationWith>>;
  let caller: User;
  const read = () => request(h.queryApp);
  const write = () => request(h.commandApp);
  const kept = () => (h.queryApp.locals['viewerFacts'] as KeptViewerFacts).counts;

  beforeAll(async () => {
    // Trusting loopback makes X-Forwarded-For the client's address (the geographic restriction).
    h = await startHarness('all', { ...patientReads, CAIRN_TRUSTED_PROXIES: '127.0.0.1,::1', CAIRN_VIEWER_FACTS_SECONDS: '600' });
    org = await organizationWith(h, 'Kept facts institute');
    caller = org.member;
  });
  afterAll(async () => h.close());

  // The unfiltered page also lists what the other test made: each test looks at its own titles.
  const titlesOf = (body: Asset[], tag: string) => body.map((a) => a.title).filter((t) => t.startsWith(tag)).sort();
  // One page statement of each kind: the unfiltered walk, a driven walk (tag), a walk of the order (q), a window (title), the query.
  const pages = (tag: string) => [
    ['GET /api/assets/', () => read().get('/api/assets/?limit=50').set(bearer(caller))],
    ['tags', () => read().get(`/api/assets/?tags=${tag}`).set(bearer(caller))],
    ['q', () => read().get(`/api/assets/?q=${tag}`).set(bearer(caller))],
    ['metadata', () => read().get(`/api/assets/?metadata=${encodeURIComponent(`marker:${tag}`)}`).set(bearer(caller))],
    ['query', () => read().post('/api/assets/query/').set(bearer(caller)).send({ where: { field: 'tags', op: 'contains', value: tag } })],
  ] as const;

  it('a group joined or left shows in the next page of every kind, the kept facts found stale and read again', async () => {
    const group = await createGroup(h, org.admin, org.id, 'Readers of the kept');
    const tag = 'kept-group';
    const shared = await createAsset(h, org.admin, { title: `${tag} shared`, tags: [tag], metadata: { marker: tag } });
    await setPermissions(h, org.admin, shared.id, [{ subject_type: 'group', subject_id: group.id, flags: 1 }]);
    await createAsset(h, caller, { title: `${tag} own`, tags: [tag], metadata: { marker: tag } });
    // A collection the group may read: the collection listing keeps the facts too, whole or paginated.
    const collection = await createCollection(h, org.admin, { title: `${tag} collection` });
    await setCollectionPermissions(h, org.admin, collection.id, [{ subject_type: 'group', subject_id: group.id, flags: 1 }]);
    const collectionsSeen = async () => {
      const whole = ((await read().get('/api/collections/').set(bearer(caller)).expect(200)).body as { id: string }[]).map((c) => c.id);
      const paged = ((await read().get('/api/collections/?limit=100').set(bearer(caller)).expect(200)).body as { id: string }[]).map((c) => c.id);
      expect(paged).toEqual(whole);
      return whole.includes(collection.id);
    };

    for (const [label, page] of pages(tag)) expect(titlesOf((await page().expect(200)).body, tag), label).toEqual([`${tag} own`]);
    expect(await collectionsSeen()).toBe(false);
    const before = { ...kept() };
    // Read once more with the facts kept: they held.
    await pages(tag)[0][1]().expect(200);
    expect(kept().held).toBeGreaterThan(before.held);

    await write().post(`/api/groups/${group.id}/members/`).set(bearer(org.admin)).send({ user_id: caller.id }).expect(201);
    // The collection listing first, while the facts kept still lack the group.
    expect(await collectionsSeen()).toBe(true);
    for (const [label, page] of pages(tag)) {
      const body = (await page().expect(200)).body as Asset[];
      expect(titlesOf(body, tag), label).toEqual([`${tag} own`, `${tag} shared`]);
      expect(body.find((a) => a.id === shared.id)?.access_scope, label).toBe('group');
    }
    const joined = { ...kept() };
    expect(joined.stale).toBeGreaterThan(before.stale);

    await write().delete(`/api/groups/${group.id}/members/${caller.id}/`).set(bearer(org.admin)).expect(204);
    expect(await collectionsSeen()).toBe(false);
    for (const [label, page] of pages(tag)) expect(titlesOf((await page().expect(200)).body, tag), label).toEqual([`${tag} own`]);
    expect(kept().stale).toBeGreaterThan(joined.stale);

    // Operators see the same counts (docs/observability.md).
    const metrics = (await request(createOpsApp(h.queryResources)).get('/metrics')).text;
    expect(Number(/cairn_viewer_facts_lookups\{outcome="stale"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(kept().stale);
    expect(metrics).toMatch(/cairn_viewer_facts_lookups\{outcome="held"\} [1-9]\d*/);
  });

  it("a project's restriction switched on after the facts were kept leaves its assets out of the next page at once", async () => {
    const project = await createProject(h, org.admin, org.id, 'Restricted after keeping');
    await write().post(`/api/projects/${project.id}/members/`).set(bearer(org.admin)).send({ user_id: caller.id, role: 'member' }).expect(201);
    const tag = 'kept-geo';
    await createAsset(h, org.admin, { title: `${tag} of the project`, owner_type: 'project', owner_id: project.id, tags: [tag], metadata: { marker: tag } });
    await createAsset(h, caller, { title: `${tag} own`, tags: [tag], metadata: { marker: tag } });
    const from = (req: request.Test) => req.set('X-Forwarded-For', ip.US);

    for (const [label, page] of pages(tag)) expect(titlesOf((await from(page()).expect(200)).body, tag), label).toEqual([`${tag} of the project`, `${tag} own`]);
    await patchProject(h, org.admin, project.id, { geobound_enabled: true, geobound_basis: 'ip', geobound_allowed_countries: ['DE'] });
    for (const [label, page] of pages(tag)) expect(titlesOf((await from(page()).expect(200)).body, tag), label).toEqual([`${tag} own`]);
    // From an allowed place, the project's assets are listed again.
    for (const [label, page] of pages(tag)) expect(titlesOf((await page().set('X-Forwarded-For', ip.DE).expect(200)).body, tag), label).toEqual([`${tag} of the project`, `${tag} own`]);
  });
});
