import { randomUUID } from 'node:crypto';
import type { Client } from './client.ts';
import type { Kind } from './values.ts';

export type Caller = { readonly id: string; readonly token: string };
export type Entity = { readonly id: string; readonly parent?: string };
export type Callers = { readonly admin: Caller; readonly plain: Caller; readonly readOnly: Caller };

/** The kind of entity a path parameter names, read off the path. */
export function paramKind(path: string, param: string): Kind {
  if (param === 'user_id') return 'user';
  if (param === 'org_pk') return 'organization';
  if (param === 'note_id') return 'note';
  if (param === 'rel_id') return 'relationship';
  if (param === 'asset_id') return 'asset';
  if (param !== 'id') return 'any';
  const first = path.split('/')[2] ?? '';
  const kinds: Record<string, Kind> = {
    'funding-agencies': 'fundingAgency',
    groups: 'group',
    admin: 'user',
    organizations: 'organization',
    projects: 'project',
    'country-sets': 'countrySet',
    assets: 'asset',
    collections: 'collection',
  };
  return kinds[first] ?? 'any';
}

/** For paths with a parent and a child id: the kind of pair that belongs together. */
export function pairKind(path: string): Kind | undefined {
  if (/^\/api\/groups\/\{id\}\/members\/\{user_id\}\/$/.test(path)) return 'groupMember';
  if (/^\/api\/projects\/\{id\}\/members\/\{user_id\}\/$/.test(path)) return 'projectMember';
  if (/^\/api\/admin\/users\/\{id\}\/organizations\/\{org_pk\}\/$/.test(path)) return 'orgMembership';
  if (/\{note_id\}/.test(path)) return 'note';
  if (/\{rel_id\}/.test(path)) return 'relationship';
  return undefined;
}

/**
 * The kinds an id of any kind is drawn from. Not the callers': a path id of any kind once
 * named the administrator, whom a fuzzed PATCH of `/api/admin/users/{id}/` then deactivated,
 * and its token answered 401 for the rest of the run (FUZZ_SEED=2091417408).
 */
const idKinds: readonly Kind[] = ['user', 'organization', 'group', 'project', 'collection', 'countrySet', 'fundingAgency', 'asset', 'note', 'relationship'];
const keep = 40;

type Json = Record<string, unknown>;

/**
 * A small world of real entities, made through the API before fuzzing starts, and kept
 * alive while it runs: ids created by fuzzed requests join it, deleted ones are replaced,
 * and locks and geographic restrictions that fuzzed requests set are undone now and then,
 * so that a long run keeps reaching the routes' success paths.
 *
 * The callers (a system administrator, a plain user, a read-only token of the plain
 * user) are never the target of a path id, so the fuzzer cannot deactivate or demote
 * the tokens it sends.
 */
export class World {
  private readonly pools = new Map<Kind, Entity[]>();
  private readonly minimum = new Map<Kind, number>();
  private readonly locked = new Set<string>();
  private readonly restricted = new Set<string>();
  organizationId = '';

  readonly client: Client;
  readonly callers: Callers;
  private readonly newUser: () => Promise<Caller>;
  constructor(
    client: Client,
    callers: Callers,
    newUser: () => Promise<Caller>,
  ) {
    this.client = client;
    this.callers = callers;
    this.newUser = newUser;
  }

  add(kind: Kind, entity: Entity): void {
    const pool = this.pools.get(kind) ?? [];
    if (pool.some((e) => e.id === entity.id && e.parent === entity.parent)) return;
    pool.push(entity);
    // The entities made at the start stay; harvested ones rotate.
    const floor = this.minimum.get(kind) ?? 0;
    if (pool.length > floor + keep) pool.splice(floor, 1);
    this.pools.set(kind, pool);
  }

  /** The `n`-th entity of `kind` (modulo), or undefined when the world has none. */
  pick(kind: Kind, n: number): Entity | undefined {
    const pool = kind === 'any' ? idKinds.flatMap((k) => this.pools.get(k) ?? []) : (this.pools.get(kind) ?? []);
    return pool.length === 0 ? undefined : pool[n % pool.length];
  }

  /** An id of `kind` for a request: a fresh UUID when the world has none. */
  id(kind: Kind, n: number): string {
    return this.pick(kind, n)?.id ?? randomUUID();
  }

  size(kind: Kind): number {
    return this.pools.get(kind)?.length ?? 0;
  }

  /** Retries the world's own writes that answered 503 (read models lagging behind other test files). */
  private async write(method: string, path: string, token: string, body?: unknown): Promise<Json> {
    for (let attempt = 0; ; attempt += 1) {
      const res = await this.client.json(method, path, token, body);
      if (res.status >= 200 && res.status < 300) return (res.body ?? {}) as Json;
      if (res.status !== 503 || attempt >= 10) throw new Error(`world set-up: ${method} ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async build(): Promise<void> {
    const { admin, plain } = this.callers;
    for (const caller of Object.values(this.callers)) this.add('caller', { id: caller.id });
    for (let i = 0; i < 3; i += 1) this.add('user', { id: (await this.newUser()).id });
    const [u1, u2] = [this.id('user', 0), this.id('user', 1)];

    const org = await this.write('POST', '/api/organizations/', admin.token, { name: 'Fuzz Institute', country: 'CH' });
    const org2 = await this.write('POST', '/api/organizations/', admin.token, { name: 'Second Fuzz Institute' });
    this.organizationId = String(org['id']);
    this.add('organization', { id: this.organizationId });
    this.add('organization', { id: String(org2['id']) });
    await this.write('POST', `/api/admin/users/${plain.id}/organizations/`, admin.token, { organization_id: this.organizationId, role: 'admin' });
    await this.write('POST', `/api/admin/users/${u1}/organizations/`, admin.token, { organization_id: this.organizationId, role: 'member' });
    await this.write('POST', `/api/admin/users/${u2}/organizations/`, admin.token, { organization_id: String(org2['id']), role: 'member' });
    this.add('orgMembership', { parent: u1, id: this.organizationId });
    this.add('orgMembership', { parent: u2, id: String(org2['id']) });

    await this.create('group');
    await this.write('POST', `/api/groups/${this.id('group', 0)}/members/`, admin.token, { user_id: u1 });
    this.add('groupMember', { parent: this.id('group', 0), id: u1 });
    await this.create('project');
    await this.write('POST', `/api/projects/${this.id('project', 0)}/members/`, plain.token, { user_id: u1, role: 'member' });
    this.add('projectMember', { parent: this.id('project', 0), id: u1 });
    await this.create('countrySet');
    await this.create('fundingAgency');
    for (let i = 0; i < 4; i += 1) await this.create('asset');
    const projectAsset = await this.write('POST', '/api/assets/', plain.token, { title: 'Project asset', owner_type: 'project', owner_id: this.id('project', 0) });
    this.add('asset', { id: String(projectAsset['id']) });
    const adminAsset = await this.write('POST', '/api/assets/', admin.token, { title: 'Admin asset', metadata: { site: 'Aletsch' } });
    this.add('asset', { id: String(adminAsset['id']) });
    await this.create('note');
    await this.create('relationship');
    await this.write('PUT', `/api/assets/${this.id('asset', 0)}/markdown-note/`, plain.token, { content: '# Field notes\n\n*Snow* at 3,000 m.' });
    await this.write('PUT', `/api/assets/${this.id('asset', 1)}/permissions/`, plain.token, {
      permissions: [
        { subject_type: 'user', subject_id: u1, flags: 3 },
        { subject_type: 'group', subject_id: this.id('group', 0), flags: 1 },
      ],
    });
    await this.write('POST', `/api/assets/${this.id('asset', 0)}/star/`, plain.token);
    const page = await this.client.json('GET', '/api/assets/?limit=1', plain.token);
    const cursor = page.headers['x-next-cursor'];
    if (typeof cursor === 'string') this.add('cursor', { id: cursor });
    for (const [kind, pool] of this.pools) this.minimum.set(kind, pool.length);
  }

  /** Makes one more entity of `kind`, as the fuzzing callers would. */
  async create(kind: Kind): Promise<void> {
    const { admin, plain } = this.callers;
    const suffix = Math.random().toString(36).slice(2, 8);
    switch (kind) {
      case 'user':
        this.add('user', { id: (await this.newUser()).id });
        return;
      case 'group':
        this.add('group', { id: String((await this.write('POST', '/api/groups/', admin.token, { organization_id: this.organizationId, name: `Fuzz group ${suffix}` }))['id']) });
        return;
      case 'project': {
        const project = await this.write('POST', '/api/projects/', plain.token, { name: `Fuzz project ${suffix}`, organization_id: this.organizationId });
        this.add('project', { id: String(project['id']) });
        if (typeof project['root_collection_id'] === 'string') this.add('collection', { id: project['root_collection_id'] });
        return;
      }
      case 'countrySet':
        this.add('countrySet', { id: String((await this.write('POST', '/api/country-sets/', admin.token, { organization_id: this.organizationId, name: `Fuzz set ${suffix}`, kind: 'allowed', countries: ['CH', 'DE'] }))['id']) });
        return;
      case 'fundingAgency':
        this.add('fundingAgency', { id: String((await this.write('POST', '/api/funding-agencies/', admin.token, { name: `Fuzz agency ${suffix}`, url: 'https://example.org' }))['id']) });
        return;
      case 'asset':
        this.add('asset', { id: String((await this.write('POST', '/api/assets/', plain.token, { title: `Fuzz asset ${suffix}`, tags: ['ice', 'fuzz'], metadata: { station: 'A1', depth: 12.5, nested: { year: 2024 } } }))['id']) });
        return;
      case 'note': {
        const asset = this.id('asset', 0);
        this.add('note', { parent: asset, id: String((await this.write('POST', `/api/assets/${asset}/notes/`, plain.token, { content: `A note ${suffix}` }))['id']) });
        return;
      }
      case 'relationship': {
        const [from, to] = [this.id('asset', 0), this.id('asset', 1)];
        this.add('relationship', { parent: from, id: String((await this.write('POST', `/api/assets/${from}/relationships/`, plain.token, { to_asset_id: to, relationship_type: 'References' }))['id']) });
        return;
      }
      default:
        return;
    }
  }

  remove(kind: Kind, id: string): void {
    const pool = this.pools.get(kind);
    if (!pool) return;
    const index = pool.findIndex((e) => e.id === id);
    if (index < 0) return;
    pool.splice(index, 1);
    const floor = this.minimum.get(kind);
    if (floor !== undefined && index < floor) this.minimum.set(kind, floor - 1);
    // A deleted asset takes its notes and relationships with it.
    if (kind === 'asset') {
      for (const child of ['note', 'relationship'] as const) {
        for (const e of (this.pools.get(child) ?? []).filter((e) => e.parent === id)) this.remove(child, e.id);
      }
    }
  }

  /** After a successful delete: forget the entity, and make a new one if the pool ran low. */
  /** Returns whether it made anything (and so wrote to the log). */
  async replace(kind: Kind, id: string): Promise<boolean> {
    this.remove(kind, id);
    let made = false;
    for (const k of [kind, 'note', 'relationship'] as const) {
      if (this.size(k) >= 3) continue;
      made = true;
      await this.create(k).catch(() => undefined);
    }
    return made;
  }

  noteLocked(assetId: string, locked: boolean): void {
    if (locked) this.locked.add(assetId);
    else this.locked.delete(assetId);
  }

  noteRestricted(projectId: string): void {
    this.restricted.add(projectId);
  }

  /** Undoes what fuzzed requests did that would shut the callers out for the rest of the run. */
  async maintain(): Promise<void> {
    const { admin } = this.callers;
    for (const id of this.locked) await this.client.json('POST', `/api/assets/${id}/lock/`, admin.token, { locked: false }).catch(() => undefined);
    this.locked.clear();
    for (const id of this.restricted) await this.client.json('PATCH', `/api/projects/${id}/`, admin.token, { geobound_enabled: false }).catch(() => undefined);
    this.restricted.clear();
  }
}
