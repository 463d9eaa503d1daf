import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type Project, type User } from '../support/api.ts';
import { startHarness, type Harness, type Shape } from '../support/harness.ts';
import { addToGroup, createGroup } from '../groups/groups-fixtures.ts';
import { addMember, createProject, join, organization } from '../projects/projects-fixtures.ts';
import { createAsset, setPermissions, type Asset } from './assets-fixtures.ts';
import { listingOrder, queryString } from './asset-listing-fixtures.ts';

/**
 * GET /api/assets/ against a model. A world is made once through the API (callers in a
 * group, an organization and a project; ~60 assets with fields from small vocabularies,
 * random permission entries, stars, locks); then random filters × callers × page sizes
 * are paged to the end and compared, in order, with a plain filter over what the test
 * itself wrote: who may read what (DECISIONS.md 2, in its own words, not principal keys)
 * and the order -is_starred (the caller's), -created_at, id.
 * The world is drawn from a seed (LISTING_SEED to replay one); fast-check prints its own.
 */

const seed = Number(process.env['LISTING_SEED'] ?? Date.now() % 2_147_483_647);

const titles = ['Ice core', 'ice Core 2', 'Firn', 'Snow pit', '100% pure', '100x pure', 'a_b', 'axb', 'Dome C', 'Firn core section 12', 'FIRN CORE_SECTION 3'] as const;
const aliases = ['', 'ic', 'ICECAP', 'x_y', 'dome-c'] as const;
const tagWords = ['a', 'b', 'c', 'd'] as const;
const recordTypes = ['', 'dataset', 'image', 'sample'] as const;
const flagChoices = [1, 2, 3, 4, 5, 16, 17, 64, 65, 511, 510] as const;
type Subject = 'user0' | 'user1' | 'user2' | 'user3' | 'group' | 'organization' | 'project' | 'public';
const subjects: readonly Subject[] = ['user0', 'user1', 'user2', 'user3', 'group', 'organization', 'project', 'public'];

type Metadata = Record<string, unknown>;
const metadataArb: fc.Arbitrary<Metadata> = fc.record(
  {
    kind: fc.constantFrom('core', 'snow'),
    n: fc.constantFrom(1, 2, 3, '3', 0),
    flag: fc.boolean(),
    list: fc.subarray(['x', 'y', 1, true] as unknown[]),
    site: fc.record({ name: fc.constantFrom('Dome C', 'Vostok', 'dome c') }, { requiredKeys: [] }),
    empty: fc.constant(null),
  },
  { requiredKeys: [] },
);
const entriesArb = fc.uniqueArray(fc.record({ subject: fc.constantFrom(...subjects), flags: fc.constantFrom(...flagChoices) }), { maxLength: 3, selector: (e) => e.subject });

const assetArb = fc.record({
  /** Index of the creating user (0..3); the owner kind is adjusted to what that user may create for. */
  creator: fc.integer({ min: 0, max: 3 }),
  ownerKind: fc.constantFrom('user', 'user', 'project', 'organization'),
  inCollection: fc.boolean(),
  title: fc.constantFrom(...titles),
  alias: fc.constantFrom(...aliases),
  tags: fc.subarray([...tagWords]),
  recordType: fc.constantFrom(...recordTypes),
  metadata: metadataArb,
  locked: fc.boolean(),
  entries: entriesArb,
  /** Entries that replace the first ones after the stars were given (null: kept). */
  laterEntries: fc.option(entriesArb, { freq: 3 }),
  /** Which of the five callers (four users, then the administrator) star it, if they may read it then. */
  stars: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
});

/** Text in one of three cases, as a caller may type it. */
const anyCase = (text: string) => fc.constantFrom(text, text.toLowerCase(), text.toUpperCase());

/**
 * The first 3 to 12 characters of a title: prefixes that fill the keys of 3, 6 and 10
 * characters of the title prefix walks (migration 0034), or stop just short of one.
 */
const titlePrefixArb = fc.oneof(
  fc.constantFrom('ice', 'ICE C', '1', '100%', 'a_', 'Dome', 'sn', '_'),
  fc.tuple(fc.constantFrom(...titles), fc.integer({ min: 3, max: 12 })).chain(([title, n]) => anyCase(title.slice(0, n))),
);

/** Two to six characters from inside a title or an alias. */
const qArb = fc.oneof(
  fc.constantFrom('ice', 'CAP', '%', '_', 'o', 'dome', 'x'),
  fc.tuple(fc.constantFrom(...titles, ...aliases.filter((a) => a.length > 0)), fc.nat(), fc.integer({ min: 2, max: 6 })).chain(([text, start, n]) => anyCase(text.slice(start % text.length).slice(0, n))),
);

type Spec = (typeof assetArb extends fc.Arbitrary<infer T> ? T : never);

type Made = {
  readonly asset: Asset;
  entries: readonly { subject: Subject; flags: number }[];
  locked: boolean;
  readonly starredBy: Set<number>;
};

/** Caller standings in the world: 0 admin of the organization and of the project, 1 member of both and of the group, 2 organization member and project viewer, 3 in nothing; 4 the system administrator. */
const callerCount = 5;
const inOrganization = (c: number) => c <= 2;
const inGroup = (c: number) => c === 1;
const projectRole = (c: number) => (c === 0 ? 'admin' : c === 1 ? 'member' : c === 2 ? 'viewer' : null);
const organizationAdmin = (c: number) => c === 0;

type Filter = {
  access_scope?: string;
  collection?: boolean;
  locked?: boolean;
  metadata: string[];
  owner?: number;
  owner_type?: string;
  q?: string;
  record_type?: string[];
  tags?: string[];
  title: string[];
  title_prefix?: string;
  ordering?: string;
};

/** Each parameter's values; a run takes a few parameters (all of them would leave nothing). */
const parameterArbs = {
  access_scope: fc.constantFrom('home', 'direct', 'project', 'group', 'organization', 'public', 'admin'),
  collection: fc.constant(true),
  locked: fc.boolean(),
  metadata: fc.uniqueArray(
    fc.constantFrom('kind:core', 'kind:snow', 'n:3', 'n:1', 'n:0', 'flag:true', 'flag:false', 'list:x', 'list:1', 'list:true', 'site.name:Dome C', 'site.name:dome c', 'site', 'site.name', 'kind', 'list', 'empty', 'empty:null', 'nothing'),
    { minLength: 1, maxLength: 2 },
  ),
  /** Index into the owners: users 0..3, the project, the organization. */
  owner: fc.integer({ min: 0, max: 5 }),
  owner_type: fc.constantFrom('user', 'project', 'organization'),
  q: qArb,
  record_type: fc.subarray(['dataset', 'image', 'sample', 'video'], { minLength: 1 }),
  tags: fc.subarray([...tagWords], { minLength: 1, maxLength: 2 }),
  title: fc.subarray([...titles, 'Nope'], { minLength: 1, maxLength: 3 }),
  title_prefix: titlePrefixArb,
  ordering: fc.constantFrom('title', '-created_at', 'whatever'),
};
type Parameter = keyof typeof parameterArbs;

const filterArb: fc.Arbitrary<Filter> = fc
  .uniqueArray(fc.constantFrom(...(Object.keys(parameterArbs) as Parameter[])), { maxLength: 3 })
  .chain((chosen) => fc.record(Object.fromEntries(chosen.map((k) => [k, parameterArbs[k]])) as { [K in Parameter]?: (typeof parameterArbs)[K] }))
  .map((picked) => ({ metadata: [], title: [], ...(picked as Partial<Filter>) }));

/** The typed readings of a `key:value` value, as 4.3.1 reads it (`3` is the number and the text). */
function readings(text: string): unknown[] {
  const values: unknown[] = [text];
  if (text === 'true') values.push(true);
  else if (text === 'false') values.push(false);
  else if (text === 'null') values.push(null);
  else if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text)) values.push(Number(text));
  return values;
}

function at(metadata: Metadata, path: readonly string[]): { found: boolean; value?: unknown } {
  let value: unknown = metadata;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !(key in value)) return { found: false };
    value = (value as Record<string, unknown>)[key];
  }
  return { found: true, value };
}

function metadataMatches(metadata: Metadata, entry: string): boolean {
  const colon = entry.indexOf(':');
  if (colon < 0) return at(metadata, entry.split('.')).found;
  const { found, value } = at(metadata, entry.slice(0, colon).split('.'));
  if (!found) return false;
  return readings(entry.slice(colon + 1)).some((r) => value === r || (Array.isArray(value) && value.includes(r)));
}

/** A condition of the query language (DECISIONS.md 4, docs/asset-query.md), drawn over the world's vocabularies. */
type Cond = { and: Cond[] } | { or: Cond[] } | { not: Cond } | { field: string; op: string; value?: unknown };

const leafArb: fc.Arbitrary<Cond> = fc.oneof(
  fc.record({ field: fc.constantFrom('title', 'alias', 'record_type', 'owner_type'), op: fc.constantFrom('eq', 'ne'), value: fc.constantFrom(...titles, ...aliases, ...recordTypes, 'user', 'project') }),
  fc.record({ field: fc.constantFrom('title', 'alias'), op: fc.constant('prefix'), value: fc.oneof(fc.constantFrom('ice', 'ICE C', '100%', 'a_', 'dome', 'x'), titlePrefixArb) }),
  fc.record({ field: fc.constantFrom('record_type', 'owner_type'), op: fc.constant('in'), value: fc.subarray(['dataset', 'image', 'sample', 'user', 'organization'], { minLength: 1 }) }),
  fc.record({ field: fc.constant('tags'), op: fc.constantFrom('contains', 'eq', 'ne'), value: fc.constantFrom(...tagWords) }),
  fc.record({ field: fc.constant('tags'), op: fc.constantFrom('eq', 'in'), value: fc.subarray([...tagWords], { minLength: 1, maxLength: 2 }) }),
  fc.record({ field: fc.constant('tags'), op: fc.constant('exists') }),
  fc.record({ field: fc.constant('is_locked'), op: fc.constantFrom('eq', 'ne'), value: fc.boolean() }),
  fc.record({ field: fc.constantFrom('metadata.kind', 'metadata.n', 'metadata.flag', 'metadata.list', 'metadata.site.name', 'metadata.empty', 'metadata.site'), op: fc.constant('exists') }),
  fc.record({ field: fc.constantFrom('metadata.kind', 'metadata.n', 'metadata.flag', 'metadata.site.name', 'metadata.empty'), op: fc.constantFrom('eq', 'ne'), value: fc.constantFrom('core', 'snow', 3, '3', 1, 0, true, false, null, 'Dome C') }),
  fc.record({ field: fc.constantFrom('metadata.kind', 'metadata.n', 'metadata.site.name'), op: fc.constant('in'), value: fc.subarray(['core', 3, '3', 1, 'Vostok'] as unknown[], { minLength: 1 }) }),
  fc.record({ field: fc.constantFrom('metadata.list', 'metadata.kind'), op: fc.constant('contains'), value: fc.constantFrom('x', 'y', 1, true, 'core') }),
  // Ranges and prefixes inside metadata are post-filtered.
  fc.record({ field: fc.constant('metadata.n'), op: fc.constantFrom('gt', 'gte', 'lt', 'lte'), value: fc.constantFrom(0, 1, 2, 2.5, 3) }),
  fc.record({ field: fc.constantFrom('metadata.kind', 'metadata.site.name'), op: fc.constant('prefix'), value: fc.constantFrom('co', 'DOME', 's', 'v') }),
) as fc.Arbitrary<Cond>;

const condArb: fc.Arbitrary<Cond> = fc.letrec<{ cond: Cond }>((tie) => ({
  cond: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafArb,
    fc.record({ and: fc.array(tie('cond'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ or: fc.array(tie('cond'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie('cond') }),
  ),
})).cond;

/** Queries, a quarter of them under a title prefix every match must meet (one that drives the page, order-drivers.ts). */
const queryArb: fc.Arbitrary<Cond> = fc.oneof(
  { arbitrary: condArb, weight: 3 },
  { arbitrary: fc.tuple(titlePrefixArb, fc.array(condArb, { maxLength: 2 })).map(([value, rest]): Cond => ({ and: [{ field: 'title', op: 'prefix', value }, ...rest] })), weight: 1 },
);

const jsonEqual = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The reference meaning of a condition for one asset, as docs/asset-query.md states it. */
function holds(cond: Cond, asset: Asset, locked: boolean): boolean {
  if ('and' in cond) return cond.and.every((c) => holds(c, asset, locked));
  if ('or' in cond) return cond.or.some((c) => holds(c, asset, locked));
  if ('not' in cond) return !holds(cond.not, asset, locked);
  const { field, op, value } = cond;
  if (field.startsWith('metadata.')) {
    const { found, value: v } = at(asset.metadata, field.slice('metadata.'.length).split('.'));
    switch (op) {
      case 'exists':
        return found;
      case 'eq':
        return found && jsonEqual(v, value);
      case 'ne':
        return !found || !jsonEqual(v, value);
      case 'in':
        return found && (value as unknown[]).some((x) => jsonEqual(v, x));
      case 'contains':
        return found && (jsonEqual(v, value) || (Array.isArray(v) && v.some((x) => jsonEqual(x, value))));
      case 'prefix':
        return found && typeof v === 'string' && v.toLowerCase().startsWith(String(value).toLowerCase());
      default: {
        if (!found || typeof v !== 'number') return false;
        const n = value as number;
        return op === 'gt' ? v > n : op === 'gte' ? v >= n : op === 'lt' ? v < n : v <= n;
      }
    }
  }
  if (field === 'tags') {
    const tags = asset.tags;
    if (op === 'exists') return tags.length > 0;
    if (op === 'in') return (value as string[]).some((t) => tags.includes(t));
    const same = Array.isArray(value) ? (value as string[]).every((t) => tags.includes(t)) && tags.every((t) => (value as string[]).includes(t)) : tags.includes(value as string);
    return op === 'ne' ? !same : same;
  }
  const actual = field === 'is_locked' ? locked : (asset as unknown as Record<string, unknown>)[field];
  switch (op) {
    case 'exists':
      return true;
    case 'eq':
      return actual === value;
    case 'ne':
      return actual !== value;
    case 'in':
      return (value as unknown[]).includes(actual);
    case 'prefix':
      return String(actual).toLowerCase().startsWith(String(value).toLowerCase());
    default:
      throw new Error(`no reference for ${op}`);
  }
}

describe.each<Shape>(['all', 'split'])('asset listing against a model, property (%s)', (shape) => {
  let h: Harness;
  let users: User[];
  let callers: User[];
  let organizationId: string;
  let project: Project;
  let groupId: string;
  const made: Made[] = [];

  const subjectId = (subject: Subject) =>
    subject === 'group' ? groupId : subject === 'organization' ? organizationId : subject === 'project' ? project.id : subject === 'public' ? null : (users[Number(subject.slice(4))] as User).id;

  /** Why caller `c` may read the asset, every reason (DECISIONS.md 2); empty when it may not. */
  function reasons(c: number, item: { asset: Asset; entries: readonly { subject: Subject; flags: number }[] }): Set<string> {
    const found = new Set<string>();
    const { asset } = item;
    if (c < 4) {
      const me = (users[c] as User).id;
      if (asset.owner_type === 'user' && asset.owner_id === me) found.add('direct');
      if (asset.owner_type === 'project' && projectRole(c) !== null) found.add('project');
      if (asset.owner_type === 'organization' && inOrganization(c)) found.add('organization');
    }
    for (const { subject, flags } of item.entries) {
      if ((flags & 1) === 0) continue;
      if (subject === 'public') found.add('public');
      else if (c >= 4) continue;
      else if (subject === `user${c}`) found.add('direct');
      else if (subject === 'group' && inGroup(c)) found.add('group');
      else if (subject === 'organization' && inOrganization(c)) found.add('organization');
      else if (subject === 'project' && projectRole(c) !== null) found.add('project');
    }
    return found;
  }

  function effectiveFlags(c: number, item: Made): number {
    if (c === 4) return 511;
    const { asset } = item;
    let flags = 0;
    const me = (users[c] as User).id;
    if (asset.owner_type === 'user' && asset.owner_id === me) flags |= 511;
    if (asset.owner_type === 'project') flags |= projectRole(c) === 'admin' ? 511 : projectRole(c) === 'member' ? 127 : projectRole(c) === 'viewer' ? 85 : 0;
    if (asset.owner_type === 'organization' && inOrganization(c)) flags |= organizationAdmin(c) ? 511 : 127;
    for (const { subject, flags: f } of item.entries) {
      const applies =
        subject === 'public' ||
        subject === `user${c}` ||
        (subject === 'group' && inGroup(c)) ||
        (subject === 'organization' && inOrganization(c)) ||
        (subject === 'project' && projectRole(c) !== null);
      if (applies) flags |= f;
    }
    return flags;
  }

  const scopeOf = (c: number, found: Set<string>) => ['direct', 'project', 'group', 'organization', 'public'].find((s) => found.has(s)) ?? (c === 4 ? 'admin' : null);

  function expected(c: number, filter: Filter): Made[] {
    const ownerIds = [...users.map((u) => u.id), project.id, organizationId];
    return made
      .filter((item) => {
        const { asset } = item;
        const found = reasons(c, item);
        if (found.size === 0 && c !== 4) return false;
        if (filter.access_scope === 'home' ? !(found.has('direct') || found.has('organization') || found.has('public')) : filter.access_scope !== undefined && scopeOf(c, found) !== filter.access_scope) return false;
        // The project's root collection is hidden from caller 3 (in nothing): filtering by it answers as a random id would (issue 23).
        if (filter.collection && (c === 3 || !asset.collection_ids.includes(project.root_collection_id))) return false;
        if (filter.locked !== undefined && item.locked !== filter.locked) return false;
        if (!filter.metadata.every((m) => metadataMatches(asset.metadata, m))) return false;
        if (filter.owner !== undefined && asset.owner_id !== ownerIds[filter.owner]) return false;
        if (filter.owner_type !== undefined && asset.owner_type !== filter.owner_type) return false;
        if (filter.q !== undefined && !asset.title.toLowerCase().includes(filter.q.toLowerCase()) && !asset.alias.toLowerCase().includes(filter.q.toLowerCase())) return false;
        if (filter.record_type !== undefined && !filter.record_type.includes(asset.record_type)) return false;
        if (filter.tags !== undefined && !filter.tags.every((t) => asset.tags.includes(t))) return false;
        if (filter.title.length > 0 && !filter.title.includes(asset.title)) return false;
        if (filter.title_prefix !== undefined && !asset.title.toLowerCase().startsWith(filter.title_prefix.toLowerCase())) return false;
        return true;
      })
      .sort((x, y) => listingOrder(new Set(made.filter((m) => m.starredBy.has(c)).map((m) => m.asset.id)))(x.asset, y.asset));
  }

  function query(filter: Filter): Record<string, string | string[]> {
    const ownerIds = [...users.map((u) => u.id), project.id, organizationId];
    const q: Record<string, string | string[]> = {};
    if (filter.access_scope !== undefined) q['access_scope'] = filter.access_scope;
    if (filter.collection) q['collection_id'] = project.root_collection_id;
    if (filter.locked !== undefined) q['locked'] = String(filter.locked);
    if (filter.metadata.length > 0) q['metadata'] = filter.metadata;
    if (filter.owner !== undefined) q['owner_id'] = ownerIds[filter.owner] as string;
    if (filter.owner_type !== undefined) q['owner_type'] = filter.owner_type;
    if (filter.q !== undefined) q['q'] = filter.q;
    if (filter.record_type !== undefined) q['record_type'] = filter.record_type.join(',');
    if (filter.tags !== undefined) q['tags'] = filter.tags.join(',');
    if (filter.title.length > 0) q['title'] = filter.title;
    if (filter.title_prefix !== undefined) q['title_prefix'] = filter.title_prefix;
    if (filter.ordering !== undefined) q['ordering'] = filter.ordering;
    return q;
  }

  async function everyPage(caller: User, q: Record<string, string | string[]>, limit: number): Promise<Asset[]> {
    const seen: Asset[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 200; page += 1) {
      const res = await request(h.queryApp)
        .get(`/api/assets/?${queryString({ ...q, limit, ...(cursor ? { cursor } : {}) })}`)
        .set(bearer(caller));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers['x-page-limit']).toBe(String(limit));
      seen.push(...(res.body as Asset[]));
      if (res.headers['x-has-more'] === 'false') {
        expect(res.headers['x-next-cursor']).toBeUndefined();
        return seen;
      }
      expect(res.body).toHaveLength(limit);
      cursor = res.headers['x-next-cursor'] as string;
    }
    throw new Error('the listing never ended');
  }

  beforeAll(async () => {
    // Windows of three assets, walks of seven: a filtered page reads the order window by window,
    // or walks a driver's matches and falls back to windows when the walk stops short (asset-page.ts).
    h = await startHarness(shape, { CAIRN_LISTING_WINDOW_ROWS: '3', CAIRN_LISTING_WALK_ROWS: '7' });
    users = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser()];
    const admin = await h.createUser({ admin: true });
    callers = [...users, admin];
    const [u0, u1, u2] = users as [User, User, User, User];
    organizationId = await organization(h, `Property Lab ${shape}`);
    await join(h, organizationId, u0, 'admin');
    await join(h, organizationId, u1);
    await join(h, organizationId, u2);
    project = await createProject(h, u0, organizationId, 'Property project');
    await addMember(h, u0, project.id, u1, 'member');
    await addMember(h, u0, project.id, u2, 'viewer');
    groupId = (await createGroup(h, u0, organizationId, 'Property group')).id;
    await addToGroup(h, u0, groupId, u1.id);

    const specs = fc.sample(fc.array(assetArb, { minLength: 60, maxLength: 60 }), { seed, numRuns: 1 })[0] as Spec[];
    const entryBody = (entries: readonly { subject: Subject; flags: number }[]) => entries.map((e) => ({ subject_type: e.subject === 'public' ? 'public' : e.subject.startsWith('user') ? 'user' : e.subject, subject_id: subjectId(e.subject), flags: e.flags }));
    // Four at a time, so that some share a millisecond and the order falls back to the id.
    for (let i = 0; i < specs.length; i += 4) {
      const batch = specs.slice(i, i + 4);
      const assets = await Promise.all(
        batch.map(async (spec) => {
          // What the creator may create for: a project needs its admin or member, an organization its member.
          const creator = spec.ownerKind === 'project' ? spec.creator % 2 : spec.ownerKind === 'organization' ? spec.creator % 3 : spec.creator;
          const owner = spec.ownerKind === 'project' ? { owner_type: 'project', owner_id: project.id } : spec.ownerKind === 'organization' ? { owner_type: 'organization', owner_id: organizationId } : {};
          // Putting it in a collection needs MANAGE on it (DECISIONS.md 2): its owner, or an admin of the owning project or organization.
          const collection = spec.inCollection && (spec.ownerKind === 'user' ? creator <= 1 : creator === 0) ? { collection_id: project.root_collection_id } : {};
          return createAsset(h, users[creator] as User, { title: spec.title, alias: spec.alias, tags: spec.tags, record_type: spec.recordType, metadata: spec.metadata, ...owner, ...collection });
        }),
      );
      assets.forEach((asset, k) => made.push({ asset, entries: (batch[k] as Spec).entries, locked: false, starredBy: new Set() }));
    }
    for (const [i, item] of made.entries()) {
      const spec = specs[i] as Spec;
      if (item.entries.length > 0) await setPermissions(h, admin, item.asset.id, entryBody(item.entries));
      if (spec.locked) {
        await request(h.commandApp).post(`/api/assets/${item.asset.id}/lock/`).set(bearer(admin)).send({ locked: true }).expect(200);
        item.locked = true;
      }
      for (let c = 0; c < callerCount; c += 1) {
        if (!spec.stars[c]) continue;
        const readable = c === 4 || reasons(c, item).size > 0;
        await request(h.commandApp)
          .post(`/api/assets/${item.asset.id}/star/`)
          .set(bearer(callers[c] as User))
          .expect(readable ? 204 : 404);
        if (readable) item.starredBy.add(c);
      }
    }
    // Then some permissions change: stars stay, and a starred asset may no longer be readable.
    for (const [i, item] of made.entries()) {
      const later = (specs[i] as Spec).laterEntries;
      if (later === null) continue;
      await setPermissions(h, admin, item.asset.id, entryBody(later));
      item.entries = later;
    }
    // The windows are cut from the creation times' histogram: make one.
    await h.resources.pool.query('analyze assets');
  }, 120_000);
  afterAll(async () => h?.close());

  it(`pages every filter, caller and page size exactly as the model orders it (world seed ${seed})`, async () => {
    // The world is what the model says: every caller's full first page.
    for (let c = 0; c < callerCount; c += 1) expect((await everyPage(callers[c] as User, {}, 100)).map((a) => a.id)).toEqual(expected(c, { metadata: [], title: [] }).map((m) => m.asset.id));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: callerCount - 1 }), filterArb, fc.constantFrom(1, 2, 3, 5, 8, 13, 100, 1000), async (c, filter, limit) => {
        const want = expected(c, filter);
        const got = await everyPage(callers[c] as User, query(filter), limit);
        expect(got.map((a) => a.id)).toEqual(want.map((m) => m.asset.id));
        for (const [k, asset] of got.entries()) {
          const item = want[k] as Made;
          expect(asset.is_starred).toBe(item.starredBy.has(c));
          expect(asset.access_scope).toBe(scopeOf(c, reasons(c, item)));
          expect(asset.effective_flags).toBe(effectiveFlags(c, item));
          expect(asset.is_locked).toBe(item.locked);
        }
      }),
      { numRuns: 150, seed: seed },
    );
  }, 120_000);

  async function everyQueryPage(caller: User, where: Cond, limit: number): Promise<Asset[]> {
    const seen: Asset[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 500; page += 1) {
      const res = await request(h.queryApp)
        .post(`/api/assets/query/?${queryString({ limit, ...(cursor ? { cursor } : {}) })}`)
        .set(bearer(caller))
        .send({ where });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      seen.push(...(res.body as Asset[]));
      if (res.headers['x-has-more'] === 'false') return seen;
      cursor = res.headers['x-next-cursor'] as string;
    }
    throw new Error('the query never ended');
  }

  it(`answers random structured queries exactly as the model does (world seed ${seed})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: callerCount - 1 }), queryArb, fc.constantFrom(1, 3, 7, 100), async (c, where, limit) => {
        const want = expected(c, { metadata: [], title: [] }).filter((item) => holds(where, item.asset, item.locked));
        const got = await everyQueryPage(callers[c] as User, where, limit);
        expect(got.map((a) => a.id)).toEqual(want.map((m) => m.asset.id));
      }),
      { numRuns: 60, seed: seed },
    );
  }, 120_000);
});
