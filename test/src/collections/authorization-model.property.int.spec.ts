import { orgsCreate } from '@cairn/cli';
import { userRootCollectionId } from '@cairn/platform';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marker } from '../assets/asset-listing-fixtures.ts';
import { settle } from '../groups/groups-fixtures.ts';
import { bearer, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import {
  allowed,
  assetFlags,
  collectionById,
  collectionFlags,
  emptyModel,
  userCount,
  type Entry,
  type ModelAsset,
  type ModelCollection,
  type Owner,
  type ProjectRole,
  type Subject,
  type UserIndex,
} from './authorization-model.ts';

/**
 * Issue 23: nobody gains what nobody gave them. Random sequences of calls by four users —
 * create assets and collections, grant and revoke on both, attach, detach, move
 * collections, transfer ownership, join and leave the organization, its group and its
 * project — beside a reference model (authorization-model.ts). Each call must succeed
 * exactly when the model allows it, and after every step every user's effective_flags on
 * every asset of the run must be the model's.
 * CI runs a short run; `npm run fuzz:authz` a long one. AUTHZ_MODEL_SEED replays a seed,
 * AUTHZ_MODEL_RUNS and AUTHZ_MODEL_STEPS set the size.
 */
const seed = Number(process.env['AUTHZ_MODEL_SEED'] ?? Date.now() % 2_147_483_647);
const numRuns = Number(process.env['AUTHZ_MODEL_RUNS'] ?? 12);
const maxSteps = Number(process.env['AUTHZ_MODEL_STEPS'] ?? 30);

const userArb = fc.constantFrom<UserIndex>(0, 1, 2, 3);
const comerArb = fc.constantFrom<UserIndex>(1, 2, 3);
/** Who calls: a user, or (as often) whoever owns what the call is about, so that calls succeed often enough to build a world. */
const actorArb = fc.oneof(userArb, fc.constant('owner' as const));
const subjectArb: fc.Arbitrary<Subject> = fc.oneof(
  userArb.map((user) => ({ kind: 'user' as const, user })),
  fc.constantFrom<Subject>({ kind: 'group' }, { kind: 'organization' }, { kind: 'project' }, { kind: 'public' }),
);
// MANAGE alone (no READ_METADATA) gives nothing visible; WRITE_METADATA alone organizes a collection one may otherwise read.
const flagChoices = [1, 2, 3, 1 | 64, 1 | 2 | 64, 1 | 256, 256, 511] as const;
const entriesArb = fc.uniqueArray(fc.record({ subject: subjectArb, flags: fc.constantFrom(...flagChoices) }), {
  maxLength: 3,
  selector: (e) => (e.subject.kind === 'user' ? `user${e.subject.user}` : e.subject.kind),
});
const ownerKindArb = fc.constantFrom('user', 'user', 'project');

const stepArb = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant('createAsset' as const), actor: actorArb, owner: ownerKindArb, into: fc.option(fc.nat(), { freq: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('createCollection' as const), actor: actorArb, owner: ownerKindArb, parent: fc.option(fc.nat()) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('assetEntries' as const), actor: actorArb, asset: fc.nat(), entries: entriesArb }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('collectionEntries' as const), actor: actorArb, collection: fc.nat(), entries: entriesArb }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('attach' as const), actor: actorArb, collection: fc.nat(), asset: fc.nat(), mine: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('detach' as const), actor: actorArb, collection: fc.nat(), asset: fc.nat(), held: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('move' as const), actor: actorArb, collection: fc.nat(), parent: fc.nat(), mine: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('transfer' as const), actor: actorArb, asset: fc.nat(), to: fc.constantFrom('self', 'project') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('organization' as const), user: comerArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('group' as const), user: userArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('project' as const), user: comerArb, role: fc.constantFrom<ProjectRole>('admin', 'member', 'viewer') }) },
);
type Step = typeof stepArb extends fc.Arbitrary<infer T> ? T : never;
type Resolved<S> = S extends { actor: unknown } ? Omit<S, 'actor'> & { actor: UserIndex } : S;

describe('authorization against a reference model, property', () => {
  let h: Harness;
  let sysadmin: User;

  beforeAll(async () => {
    h = await startHarness('all');
    sysadmin = await h.createUser({ admin: true });
  }, 120_000);
  afterAll(async () => h?.close());

  /** One run's world: four fresh users, an organization that user 0 administers, its group, a project, their roots. */
  async function world() {
    const users: User[] = [];
    for (let i = 0; i < userCount; i += 1) users.push(await h.createUser());
    const [u0] = users as [User];
    const as = (u: UserIndex) => bearer(users[u] as User);
    const organizationId = (await orgsCreate(h.resources, ['--name', `Model org ${marker()}`])).id;
    await settle(h);
    const org = await request(h.commandApp).post(`/api/admin/users/${u0.id}/organizations/`).set(bearer(sysadmin)).send({ organization_id: organizationId, role: 'admin' });
    expect(org.status, JSON.stringify(org.body)).toBe(201);
    const group = await request(h.commandApp).post('/api/groups/').set(as(0)).send({ organization_id: organizationId, name: `Model group ${marker()}` });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    expect(group.body.member_count).toBe(0);
    const project = await request(h.commandApp).post('/api/projects/').set(as(0)).send({ name: `Model project ${marker()}`, organization_id: organizationId });
    expect(project.status, JSON.stringify(project.body)).toBe(201);
    const m = emptyModel();
    for (let i = 0; i < userCount; i += 1) m.collections.push({ id: userRootCollectionId((users[i] as User).id), owner: { type: 'user', user: i as UserIndex }, parent: null, root: true, entries: [] });
    m.collections.push({ id: project.body.root_collection_id as string, owner: { type: 'project' }, parent: null, root: true, entries: [] });
    return { users, as, organizationId, groupId: group.body.id as string, projectId: project.body.id as string, m, tag: marker() };
  }

  async function run(steps: readonly Step[]) {
    const w = await world();
    const { m, as, users } = w;
    const id = (u: UserIndex) => (users[u] as User).id;
    const subjectId = (s: Subject) => (s.kind === 'user' ? id(s.user) : s.kind === 'group' ? w.groupId : s.kind === 'organization' ? w.organizationId : s.kind === 'project' ? w.projectId : null);
    const entryBody = (entries: readonly Entry[]) => entries.map((e) => ({ subject_type: e.subject.kind, subject_id: subjectId(e.subject), flags: e.flags }));
    const ownerOf = (u: UserIndex, kind: string): Owner => (kind === 'project' ? { type: 'project' } : { type: 'user', user: u });
    const ownerBody = (o: Owner) => (o.type === 'project' ? { owner_type: 'project', owner_id: w.projectId } : { owner_type: 'user', owner_id: id(o.user) });
    const pick = <T>(list: readonly T[], n: number): T | undefined => list[n % Math.max(1, list.length)];
    /** A collection, among the actor's own (their tree, or the project's if they are in it) when `mine`: where attacks start. */
    const collectionFor = (u: UserIndex, n: number, mine: boolean): ModelCollection => {
      const own = m.collections.filter((c) => (c.owner.type === 'user' ? c.owner.user === u : m.projectRole[u] != null));
      return pick(mine && own.length > 0 ? own : m.collections, n) as ModelCollection;
    };
    const log: string[] = [];

    /** The call's answer must be a success exactly when the model allows it. */
    const agree = (what: string, res: request.Response, expected: boolean) => {
      log.push(`${what} -> ${res.status}`);
      const ok = res.status >= 200 && res.status < 300;
      if (!ok) expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
      expect(ok, `${what} answered ${res.status} ${JSON.stringify(res.body)}; the model says ${expected ? 'allowed' : 'refused'}\n${log.join('\n')}`).toBe(expected);
      return ok;
    };

    const check = async () => {
      for (let u = 0 as UserIndex; u < userCount; u = (u + 1) as UserIndex) {
        const res = await request(h.queryApp).get(`/api/assets/?tags=${w.tag}&limit=1000`).set(as(u));
        expect(res.status).toBe(200);
        const seen = Object.fromEntries((res.body as { id: string; effective_flags: number }[]).map((a) => [a.id, a.effective_flags]));
        const expected = Object.fromEntries(m.assets.flatMap((a) => ((assetFlags(m, a, u) & 1) === 1 ? [[a.id, assetFlags(m, a, u)]] : [])));
        expect(seen, `user ${u} after:\n${log.join('\n')}`).toEqual(expected);
      }
    };

    // Every user starts with an asset and a collection of their own.
    for (let u = 0 as UserIndex; u < userCount; u = (u + 1) as UserIndex) {
      const a = await request(h.commandApp).post('/api/assets/').set(as(u)).send({ title: `Start ${u}`, tags: [w.tag] });
      expect(a.status).toBe(201);
      m.assets.push({ id: a.body.id, owner: { type: 'user', user: u }, entries: [], holders: [] });
      const c = await request(h.commandApp).post('/api/collections/').set(as(u)).send({ title: `Start ${u}` });
      expect(c.status).toBe(201);
      m.collections.push({ id: c.body.id, owner: { type: 'user', user: u }, parent: userRootCollectionId(id(u)), root: false, entries: [] });
    }

    for (const step of steps) {
      await apply(step);
      await check();
    }
    if (process.env['AUTHZ_MODEL_TRACE']) console.log(log.join('\n'));
    // The single reads agree with the listing: every asset and every collection, for everyone.
    for (let u = 0 as UserIndex; u < userCount; u = (u + 1) as UserIndex) {
      for (const a of m.assets) {
        const res = await request(h.queryApp).get(`/api/assets/${a.id}/`).set(as(u));
        const flags = assetFlags(m, a, u);
        expect([a.id, u, res.status === 200 ? res.body.effective_flags : res.status]).toEqual([a.id, u, (flags & 1) === 1 ? flags : 404]);
      }
      for (const c of m.collections) {
        const res = await request(h.queryApp).get(`/api/collections/${c.id}/`).set(as(u));
        const flags = collectionFlags(m, c, u);
        expect([c.id, u, res.status === 200 ? res.body.effective_flags : res.status]).toEqual([c.id, u, (flags & 1) === 1 ? flags : 404]);
      }
    }

    /** The user who owns it (user 0 administers the project), for steps whose actor is 'owner'. */
    function actorOf(actor: UserIndex | 'owner', of: { owner: Owner } | undefined): UserIndex {
      if (actor !== 'owner') return actor;
      return of?.owner.type === 'user' ? of.owner.user : 0;
    }

    function resolve(step: Step): Resolved<Step> {
      switch (step.op) {
        case 'createAsset':
        case 'createCollection':
          return { ...step, actor: actorOf(step.actor, undefined) };
        case 'assetEntries':
        case 'attach':
        case 'detach':
        case 'transfer':
          return { ...step, actor: actorOf(step.actor, pick(m.assets, step.asset)) };
        case 'collectionEntries':
        case 'move':
          return { ...step, actor: actorOf(step.actor, pick(m.collections, step.collection)) };
        default:
          return step;
      }
    }

    async function apply(generated: Step) {
      const step = resolve(generated);
      switch (step.op) {
        case 'createAsset': {
          const owner = ownerOf(step.actor, step.owner);
          const into = step.into === null ? null : (pick(m.collections, step.into) as ModelCollection);
          const expected = allowed.createAsset(m, step.actor, owner, into);
          const res = await request(h.commandApp)
            .post('/api/assets/')
            .set(as(step.actor))
            .send({ title: 'Made', tags: [w.tag], ...ownerBody(owner), ...(into ? { collection_id: into.id } : {}) });
          if (agree(`u${step.actor} creates an asset for ${owner.type}${into ? ` in ${into.id}` : ''}`, res, expected)) m.assets.push({ id: res.body.id, owner, entries: [], holders: into ? [into.id] : [] });
          return;
        }
        case 'createCollection': {
          const owner = ownerOf(step.actor, step.owner);
          const parent = step.parent === null ? (owner.type === 'project' ? (m.collections[userCount] as ModelCollection) : collectionById(m, userRootCollectionId(id(step.actor)))) : (pick(m.collections, step.parent) as ModelCollection);
          const expected = allowed.createCollection(m, step.actor, owner, parent);
          const res = await request(h.commandApp)
            .post('/api/collections/')
            .set(as(step.actor))
            .send({ title: 'Made', ...ownerBody(owner), ...(step.parent === null ? {} : { parent_id: parent.id }) });
          if (agree(`u${step.actor} creates a collection for ${owner.type} under ${parent.id}`, res, expected)) m.collections.push({ id: res.body.id, owner, parent: parent.id, root: false, entries: [] });
          return;
        }
        case 'assetEntries': {
          const a = pick(m.assets, step.asset) as ModelAsset;
          const expected = allowed.assetEntries(m, step.actor, a, step.entries);
          const res = await request(h.commandApp).put(`/api/assets/${a.id}/permissions/`).set(as(step.actor)).send({ permissions: entryBody(step.entries) });
          if (agree(`u${step.actor} sets ${JSON.stringify(step.entries)} on asset ${a.id}`, res, expected)) a.entries = step.entries;
          return;
        }
        case 'collectionEntries': {
          const c = pick(m.collections, step.collection) as ModelCollection;
          const expected = allowed.collectionEntries(m, step.actor, c, step.entries);
          const res = await request(h.commandApp).put(`/api/collections/${c.id}/permissions/`).set(as(step.actor)).send({ permissions: entryBody(step.entries) });
          if (agree(`u${step.actor} sets ${JSON.stringify(step.entries)} on collection ${c.id}`, res, expected)) c.entries = step.entries;
          return;
        }
        case 'attach': {
          const c = collectionFor(step.actor, step.collection, step.mine);
          const a = pick(m.assets, step.asset) as ModelAsset;
          const expected = allowed.attach(m, step.actor, c, a);
          const res = await request(h.commandApp).post(`/api/collections/${c.id}/assets/`).set(as(step.actor)).send({ asset_ids: [a.id] });
          if (agree(`u${step.actor} attaches ${a.id} to ${c.id}`, res, expected) && !a.holders.includes(c.id)) a.holders.push(c.id);
          return;
        }
        case 'detach': {
          const a = pick(m.assets, step.asset) as ModelAsset;
          const c = step.held && a.holders.length > 0 ? collectionById(m, pick(a.holders, step.collection) as string) : (pick(m.collections, step.collection) as ModelCollection);
          const expected = allowed.detach(m, step.actor, c, a);
          const res = await request(h.commandApp).delete(`/api/collections/${c.id}/assets/${a.id}/`).set(as(step.actor));
          if (agree(`u${step.actor} detaches ${a.id} from ${c.id}`, res, expected)) a.holders = a.holders.filter((x) => x !== c.id);
          return;
        }
        case 'move': {
          const c = pick(m.collections, step.collection) as ModelCollection;
          const parent = collectionFor(step.actor, step.parent, step.mine);
          // Naming the parent it has is no move (a PATCH of nothing).
          if (c.parent === parent.id) return;
          const expected = allowed.move(m, step.actor, c, parent);
          const res = await request(h.commandApp).patch(`/api/collections/${c.id}/`).set(as(step.actor)).send({ parent_id: parent.id });
          if (agree(`u${step.actor} moves ${c.id} under ${parent.id}`, res, expected)) c.parent = parent.id;
          return;
        }
        case 'transfer': {
          const a = pick(m.assets, step.asset) as ModelAsset;
          const to: Owner = step.to === 'project' ? { type: 'project' } : { type: 'user', user: step.actor };
          const expected = allowed.transfer(m, step.actor, a, to);
          const res = await request(h.commandApp).patch(`/api/assets/${a.id}/`).set(as(step.actor)).send(ownerBody(to));
          if (agree(`u${step.actor} gives ${a.id} to ${to.type}`, res, expected)) a.owner = to;
          return;
        }
        case 'organization': {
          const u = step.user;
          const res = m.inOrganization[u]
            ? await request(h.commandApp).delete(`/api/admin/users/${id(u)}/organizations/${w.organizationId}/`).set(bearer(sysadmin))
            : await request(h.commandApp).post(`/api/admin/users/${id(u)}/organizations/`).set(bearer(sysadmin)).send({ organization_id: w.organizationId });
          agree(`u${u} ${m.inOrganization[u] ? 'leaves' : 'joins'} the organization`, res, true);
          m.inOrganization[u] = !m.inOrganization[u];
          if (!m.inOrganization[u]) m.inGroup[u] = false;
          await settle(h);
          return;
        }
        case 'group': {
          const u = step.user;
          if (!m.inGroup[u] && !m.inOrganization[u]) return;
          const res = m.inGroup[u]
            ? await request(h.commandApp).delete(`/api/groups/${w.groupId}/members/${id(u)}/`).set(bearer(sysadmin))
            : await request(h.commandApp).post(`/api/groups/${w.groupId}/members/`).set(bearer(sysadmin)).send({ user_id: id(u) });
          agree(`u${u} ${m.inGroup[u] ? 'leaves' : 'joins'} the group`, res, true);
          m.inGroup[u] = !m.inGroup[u];
          await settle(h);
          return;
        }
        case 'project': {
          const u = step.user;
          const role = m.projectRole[u];
          const res = role
            ? await request(h.commandApp).delete(`/api/projects/${w.projectId}/members/${id(u)}/`).set(bearer(sysadmin))
            : await request(h.commandApp).post(`/api/projects/${w.projectId}/members/`).set(bearer(sysadmin)).send({ user_id: id(u), role: step.role });
          agree(`u${u} ${role ? 'leaves' : `joins as ${step.role}`} the project`, res, true);
          m.projectRole[u] = role ? null : step.role;
          await settle(h);
          return;
        }
      }
    }
  }

  it(`gives every user on every asset exactly the flags the model gives (seed ${seed})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: Math.min(10, maxSteps), maxLength: maxSteps, size: 'max' }), async (steps) => run(steps)),
      { seed, numRuns, endOnFailure: process.env['AUTHZ_MODEL_SHRINK'] !== 'true' },
    );
  }, 1_800_000);
});
