import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marker } from '../assets/asset-listing-fixtures.ts';
import { createAsset, setPermissions, type Asset } from '../assets/assets-fixtures.ts';
import { addToGroup, createGroup } from '../groups/groups-fixtures.ts';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { bearer, type Project, type User } from '../support/api.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { attachAssets, createCollection, everyPage, setCollectionPermissions } from './collections-fixtures.ts';

/**
 * Collections and what flows down them, against a plain model. Each run draws a small tree
 * (at most four deep) under a fresh top collection of a user or of a project, entries at
 * random levels, assets (of users, the project, the organization; with entries of their
 * own or none) in random collections, then perhaps a move, a change of entries, a
 * recursive deletion and a detach. Every caller then reads, and the answers must equal
 * the model's, which knows nothing of principal keys: who may read an asset is its owner,
 * its own entries, or an entry on a collection holding it or on any of that collection's
 * ancestors (DECISIONS.md 2), and a collection's flags are its owner's plus the entries
 * on it and its ancestors (docs/collections.md).
 * Compared: GET /api/assets/ (order, effective_flags, access_scope), GET
 * /api/collections/{id}/ (status, effective_flags), GET /api/collections/{id}/assets/
 * (status after the LIST gate, order in a random ordering) and the asset listing's
 * `collection_id`. A run's assets carry a tag of their own, so runs do not see each other.
 * COLLECTIONS_SEED replays a seed; fast-check prints its own.
 */

const seed = Number(process.env['COLLECTIONS_SEED'] ?? Date.now() % 2_147_483_647);

type Subject = 'user0' | 'user1' | 'user2' | 'user3' | 'group' | 'organization' | 'project' | 'public';
const subjects: readonly Subject[] = ['user0', 'user1', 'user2', 'user3', 'group', 'organization', 'project', 'public'];
type Entry = { subject: Subject; flags: number };
// Entries without READ_METADATA too: they give their other flags, never visibility.
const collectionFlagChoices = [1, 2, 64, 65, 3, 67, 1 | 128, 1 | 256, 511] as const;
const assetFlagChoices = [1, 2, 3, 65, 511] as const;
const entriesOf = (choices: readonly number[], maxLength: number) => fc.uniqueArray(fc.record({ subject: fc.constantFrom(...subjects), flags: fc.constantFrom(...choices) }), { maxLength, selector: (e) => e.subject });

const orderings = ['created_at', '-created_at', 'creator', '-creator', 'title', '-title', 'updated_at', '-updated_at'] as const;
const titles = ['alpha', 'bravo', 'charlie', 'alpha', 'delta'] as const;

const runArb = fc.record({
  ownerKind: fc.constantFrom('user', 'project'),
  /** Below the top (index 0): each picks a parent among the top and the earlier ones at most three deep. */
  parents: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
  entries: fc.array(fc.option(entriesOf(collectionFlagChoices, 2), { freq: 2 }), { minLength: 9, maxLength: 9 }),
  assets: fc.array(
    fc.record({
      creator: fc.integer({ min: 0, max: 3 }),
      ownerKind: fc.constantFrom('user', 'user', 'project', 'organization'),
      title: fc.constantFrom(...titles),
      entries: entriesOf(assetFlagChoices, 2),
      /** Indexes into the run's collections (modulo their number). */
      holders: fc.uniqueArray(fc.nat(), { maxLength: 2 }),
    }),
    { minLength: 1, maxLength: 8 },
  ),
  move: fc.option(fc.record({ collection: fc.nat(), parent: fc.nat() })),
  laterEntries: fc.option(fc.record({ collection: fc.nat(), entries: entriesOf(collectionFlagChoices, 2) })),
  remove: fc.option(fc.nat(), { freq: 3 }),
  detach: fc.option(fc.record({ asset: fc.nat(), holder: fc.nat() })),
  limit: fc.constantFrom(1, 2, 3, 100),
  /** The collection whose assets are also paged and listed through `collection_id`. */
  probe: fc.nat(),
  orderings: fc.array(fc.constantFrom(...orderings), { minLength: 9, maxLength: 9 }),
});
type Run = typeof runArb extends fc.Arbitrary<infer T> ? T : never;

/** Caller standings, as in the asset listing's property: 0 admin of the organization and the project, 1 member of both and of the group, 2 organization member and project viewer, 3 in nothing; 4 the system administrator. */
const callerCount = 5;
const admin = 4;
const inOrganization = (c: number) => c <= 2;
const inGroup = (c: number) => c === 1;
const projectRole = (c: number) => (c === 0 ? 'admin' : c === 1 ? 'member' : c === 2 ? 'viewer' : null);
const roleFlags = (c: number) => {
  const role = projectRole(c);
  return role === 'admin' ? 511 : role === 'member' ? 127 : role === 'viewer' ? 85 : 0;
};
const names = (c: number, subject: Subject) =>
  subject === 'public' || subject === `user${c}` || (subject === 'group' && inGroup(c)) || (subject === 'organization' && inOrganization(c)) || (subject === 'project' && projectRole(c) !== null);

/** The model of one run. */
type ModelCollection = { id: string; parent: string | null; entries: Entry[]; deleted: boolean; ownerKind: 'user' | 'project' };
type ModelAsset = { asset: Asset; owner: { kind: string; user: number | null }; entries: Entry[]; holders: string[] };

describe('collections against a model, property', () => {
  let h: Harness;
  let users: User[];
  let callers: User[];
  let organizationId: string;
  let project: Project;
  let groupId: string;
  let userTop: string;

  const subjectId = (subject: Subject) =>
    subject === 'group' ? groupId : subject === 'organization' ? organizationId : subject === 'project' ? project.id : subject === 'public' ? null : (users[Number(subject.slice(4))] as User).id;
  const entryBody = (entries: readonly Entry[]) =>
    entries.map((e) => ({ subject_type: e.subject === 'public' ? 'public' : e.subject.startsWith('user') ? 'user' : e.subject, subject_id: subjectId(e.subject), flags: e.flags }));

  beforeAll(async () => {
    h = await startHarness('all');
    users = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser()];
    callers = [...users, await h.createUser({ admin: true })];
    const [u0, u1, u2] = users as [User, User, User, User];
    organizationId = await organization(h, 'Collections Property Lab');
    await join(h, organizationId, u0, 'admin');
    await join(h, organizationId, u1);
    await join(h, organizationId, u2);
    project = await createProject(h, u0, organizationId, 'Collections property project');
    await addMember(h, u0, project.id, u1, 'member');
    await addMember(h, u0, project.id, u2, 'viewer');
    groupId = (await createGroup(h, u0, organizationId, 'Collections property group')).id;
    await addToGroup(h, u0, groupId, u1.id);
    userTop = (await createCollection(h, u0, { title: 'Property runs' })).id;
  }, 120_000);
  afterAll(async () => h?.close());

  /** Builds the run through the API (u0 owns the user trees and administers the project; the system administrator places assets and changes the tree) and answers its model. */
  async function build(run: Run) {
    const [u0] = users as [User];
    const sysadmin = callers[admin] as User;
    const tag = marker();
    const project_ = run.ownerKind === 'project' ? { owner_type: 'project', owner_id: project.id } : {};
    const collections: ModelCollection[] = [];
    const depth = new Map<string, number>();
    const top = await createCollection(h, u0, { title: `Top ${tag}`, parent_id: run.ownerKind === 'project' ? project.root_collection_id : userTop, ...project_ });
    collections.push({ id: top.id, parent: null, entries: [], deleted: false, ownerKind: run.ownerKind });
    depth.set(top.id, 1);
    for (const pick of run.parents) {
      const candidates = collections.filter((c) => (depth.get(c.id) ?? 9) < 4);
      const parent = candidates[pick % candidates.length] as ModelCollection;
      const made = await createCollection(h, u0, { title: `Node ${tag}`, parent_id: parent.id, ...project_ });
      collections.push({ id: made.id, parent: parent.id, entries: [], deleted: false, ownerKind: run.ownerKind });
      depth.set(made.id, (depth.get(parent.id) ?? 0) + 1);
    }
    await Promise.all(
      collections.map(async (c, i) => {
        const entries = run.entries[i];
        if (!entries || entries.length === 0) return;
        await setCollectionPermissions(h, u0, c.id, entryBody(entries));
        c.entries = entries;
      }),
    );
    const assets: ModelAsset[] = [];
    for (const spec of run.assets) {
      const creator = spec.ownerKind === 'project' ? spec.creator % 2 : spec.ownerKind === 'organization' ? spec.creator % 3 : spec.creator;
      const owner = spec.ownerKind === 'project' ? { owner_type: 'project', owner_id: project.id } : spec.ownerKind === 'organization' ? { owner_type: 'organization', owner_id: organizationId } : {};
      const asset = await createAsset(h, users[creator] as User, { title: spec.title, tags: [tag], ...owner });
      if (spec.entries.length > 0) await setPermissions(h, sysadmin, asset.id, entryBody(spec.entries));
      const holders = [...new Set(spec.holders.map((k) => (collections[k % collections.length] as ModelCollection).id))];
      assets.push({ asset, owner: { kind: spec.ownerKind, user: spec.ownerKind === 'user' ? creator : null }, entries: spec.entries, holders });
    }
    for (const c of collections) {
      const held = assets.filter((a) => a.holders.includes(c.id)).map((a) => a.asset.id);
      if (held.length > 0) await attachAssets(h, sysadmin, c.id, held);
    }
    const below = (id: string): Set<string> => {
      const found = new Set([id]);
      for (let grew = true; grew; ) {
        grew = false;
        for (const c of collections) if (c.parent !== null && found.has(c.parent) && !found.has(c.id) && !c.deleted) grew = found.add(c.id).size > 0;
      }
      return found;
    };
    const alive = () => collections.filter((c) => !c.deleted);
    if (run.move && collections.length > 1) {
      const movable = alive().slice(1);
      const moved = movable[run.move.collection % movable.length] as ModelCollection;
      const subtree = below(moved.id);
      const targets = alive().filter((c) => !subtree.has(c.id));
      const target = targets[run.move.parent % targets.length] as ModelCollection;
      const res = await request(h.commandApp).patch(`/api/collections/${moved.id}/`).set(bearer(sysadmin)).send({ parent_id: target.id });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      moved.parent = target.id;
    }
    if (run.laterEntries) {
      const changed = alive()[run.laterEntries.collection % alive().length] as ModelCollection;
      await setCollectionPermissions(h, sysadmin, changed.id, entryBody(run.laterEntries.entries));
      changed.entries = run.laterEntries.entries;
    }
    if (run.remove !== null && alive().length > 1) {
      const removable = alive().slice(1);
      const removed = removable[run.remove % removable.length] as ModelCollection;
      const gone = below(removed.id);
      const res = await request(h.commandApp).delete(`/api/collections/${removed.id}/?recursive=true`).set(bearer(sysadmin));
      expect(res.status, JSON.stringify(res.body)).toBe(204);
      for (const c of collections) if (gone.has(c.id)) c.deleted = true;
    }
    if (run.detach) {
      const holding = assets.filter((a) => a.holders.some((k) => !collections.find((c) => c.id === k)?.deleted));
      const item = holding[run.detach.asset % Math.max(1, holding.length)];
      if (item) {
        const live = item.holders.filter((k) => !collections.find((c) => c.id === k)?.deleted);
        const from = live[run.detach.holder % live.length] as string;
        const res = await request(h.commandApp).delete(`/api/collections/${from}/assets/${item.asset.id}/`).set(bearer(sysadmin));
        expect(res.status, JSON.stringify(res.body)).toBe(204);
        item.holders = item.holders.filter((k) => k !== from);
      }
    }
    return { tag, collections, assets };
  }

  it(`answers every caller as the model does, over random trees (seed ${seed})`, async () => {
    await fc.assert(
      fc.asyncProperty(runArb, async (run) => {
        const { tag, collections, assets } = await build(run);
        const byId = new Map(collections.map((c) => [c.id, c]));
        /** The collection and its ancestors within the run (those above it hold no entries). */
        const chain = (id: string): ModelCollection[] => {
          const found: ModelCollection[] = [];
          for (let c = byId.get(id); c; c = c.parent === null ? undefined : byId.get(c.parent)) found.push(c);
          return found;
        };
        const entryFlags = (c: number, entries: readonly Entry[]) => entries.reduce((f, e) => (names(c, e.subject) ? f | e.flags : f), 0);
        /** What the entries on the collection and its ancestors give caller `c`. */
        const flowingDown = (c: number, id: string) => chain(id).reduce((f, k) => f | entryFlags(c, k.entries), 0);
        const collectionFlags = (c: number, k: ModelCollection) => {
          if (c === admin) return 511;
          const owner = k.ownerKind === 'user' ? (c === 0 ? 511 : 0) : roleFlags(c);
          return owner | flowingDown(c, k.id);
        };
        const ownFlags = (c: number, item: ModelAsset) => {
          let flags = entryFlags(c, item.entries);
          if (item.owner.kind === 'user' && item.owner.user === c) flags |= 511;
          if (item.owner.kind === 'project') flags |= roleFlags(c);
          if (item.owner.kind === 'organization' && inOrganization(c)) flags |= c === 0 ? 511 : 127;
          return flags;
        };
        /** Why `c` reads the asset itself (its owner or its own entries), the most direct first. */
        const ownScope = (c: number, item: ModelAsset): string | null => {
          const found = new Set<string>();
          if (c !== admin) {
            if (item.owner.kind === 'user' && item.owner.user === c) found.add('direct');
            if (item.owner.kind === 'project' && projectRole(c) !== null) found.add('project');
            if (item.owner.kind === 'organization' && inOrganization(c)) found.add('organization');
          }
          for (const { subject, flags } of item.entries) {
            if ((flags & 1) === 0 || !names(c, subject)) continue;
            found.add(subject === 'public' ? 'public' : subject.startsWith('user') ? 'direct' : subject);
          }
          return ['direct', 'project', 'group', 'organization', 'public'].find((s) => found.has(s)) ?? null;
        };
        const holdersOf = (item: ModelAsset) => item.holders.filter((k) => !byId.get(k)?.deleted);
        const viaCollections = (c: number, item: ModelAsset) => holdersOf(item).reduce((f, k) => f | flowingDown(c, k), 0);
        const readable = (c: number, item: ModelAsset) => c === admin || ((ownFlags(c, item) | viaCollections(c, item)) & 1) === 1;
        const expectedFlags = (c: number, item: ModelAsset) => (c === admin ? 511 : ownFlags(c, item) | viaCollections(c, item));
        const expectedScope = (c: number, item: ModelAsset) => ownScope(c, item) ?? ((viaCollections(c, item) & 1) === 1 ? 'collection' : c === admin ? 'admin' : null);

        // What the server says the assets are now (timestamps, creators), for the orderings.
        const now = new Map((await everyPage(h, callers[admin] as User, `/api/assets/?tags=${tag}`, 100)).map((a) => [a.id, a]));
        expect(now.size).toBe(assets.length);
        const newestFirst = (x: Asset, y: Asset) => (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : x.id < y.id ? -1 : 1);
        const ordered = (items: Asset[], ordering: string) => {
          const desc = ordering.startsWith('-');
          const field = (desc ? ordering.slice(1) : ordering) as 'created_at' | 'creator' | 'title' | 'updated_at';
          const key = (a: Asset) => (field === 'creator' ? (a.created_by ?? '') : a[field]);
          return [...items].sort((x, y) => {
            // Descending is ascending reversed, ties by id included.
            const ascending = (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0) || (x.id < y.id ? -1 : 1);
            return desc ? -ascending : ascending;
          });
        };

        const check = async (c: number) => {
          const caller = callers[c] as User;
          const label = (what: string) => `caller ${c}: ${what}`;
          // The asset listing.
          const want = assets.filter((item) => readable(c, item)).map((item) => now.get(item.asset.id) as Asset).sort(newestFirst);
          const got = await everyPage(h, caller, `/api/assets/?tags=${tag}`, run.limit);
          expect(ids(got), label('GET /api/assets/')).toEqual(ids(want));
          for (const asset of got) {
            const item = assets.find((a) => a.asset.id === asset.id) as ModelAsset;
            expect([asset.effective_flags, asset.access_scope], label(`asset ${asset.title} flags and scope`)).toEqual([expectedFlags(c, item), expectedScope(c, item)]);
            // Only the collections the caller sees, but every one to who manages the asset by its own grants (issue 23).
            const shown = c === admin || (ownFlags(c, item) & 256) === 256 ? holdersOf(item) : holdersOf(item).filter((k) => (collectionFlags(c, byId.get(k) as ModelCollection) & 1) === 1);
            expect(new Set(asset.collection_ids), label('collection_ids')).toEqual(new Set(shown));
          }
          // Each collection of the run, and its assets (one of them paged, and through the asset listing's collection_id).
          for (const [i, k] of collections.entries()) {
            const flags = collectionFlags(c, k);
            const visible = !k.deleted && (c === admin || (flags & 1) === 1);
            const one = await request(h.queryApp).get(`/api/collections/${k.id}/`).set(bearer(caller));
            expect([one.status, one.body.effective_flags], label(`GET collection ${i}`)).toEqual(visible ? [200, flags] : [404, undefined]);
            const ordering = run.orderings[i] as string;
            const listing = await request(h.queryApp).get(`/api/collections/${k.id}/assets/?ordering=${ordering}&limit=1000`).set(bearer(caller));
            const status = !visible ? 404 : c === admin || (flags & 64) === 64 ? 200 : 403;
            expect(listing.status, label(`GET collection ${i} assets`)).toBe(status);
            const inside = assets.filter((item) => holdersOf(item).includes(k.id) && readable(c, item)).map((item) => now.get(item.asset.id) as Asset);
            if (status === 200) expect(ids(listing.body as Asset[]), label(`collection ${i} assets by ${ordering}`)).toEqual(ids(ordered(inside, ordering)));
            if (i !== run.probe % collections.length) continue;
            if (status === 200) expect(ids(await everyPage(h, caller, `/api/collections/${k.id}/assets/?ordering=${ordering}`, run.limit)), label(`collection ${i} assets by ${ordering}, paged`)).toEqual(ids(ordered(inside, ordering)));
            // A deleted collection holds nothing; nor, for the caller, does one they may not see (issue 23).
            expect(ids(await everyPage(h, caller, `/api/assets/?tags=${tag}&collection_id=${k.id}`, 100)), label(`GET /api/assets/?collection_id= ${i}`)).toEqual(visible ? ids(inside.sort(newestFirst)) : []);
          }
        };
        await Promise.all(Array.from({ length: callerCount }, (_, c) => check(c)));
      }),
      { numRuns: Number(process.env['COLLECTIONS_RUNS'] ?? 25), seed, endOnFailure: true },
    );
  }, 240_000);
});

const ids = (items: readonly { id: string }[]) => items.map((x) => x.id);
