import { randomUUID } from 'node:crypto';
import { openResources, orgsAddMember, serve, usersCreate, type Resources } from '@cairn/cli';
import { assets, currentVersionOf, eventCatalog, operatorActor, type EventMetadata, type UserId } from '@cairn/domain';
import { createLogger, loadConfig, migrate, registerUser } from '@cairn/platform';
import { assetsProjection, rebuildBlueGreen } from '@cairn/projections';
import pg from 'pg';
import { assetDetails, between, pick, seededRandom, skewed, type Random } from './asset-data.ts';
import { applyFreshRowOps, withSecondaryIndexesDropped } from './bulk-row-ops.ts';
import { benchPublicUrl } from './cairn-process.ts';
import { keepAliveClient } from './keep-alive-client.ts';
import { databaseUrl, serverUrl } from './scratch-database.ts';
import { issueBenchToken } from './service-client.ts';

/** The bench caller: a plain user (no administrator), member of the first organization. */
export const callerEmail = 'caller@bench.example';

/** `cairn_bench_assets_1m` for a million, `cairn_bench_assets_50000` for other counts. */
export const assetTemplateName = (count: number) => `cairn_bench_assets_${count === 1_000_000 ? '1m' : String(count)}`;

/** Seconds in all, for identity (service paths), and for the assets' events and read model (indexes and vacuum included). */
export type SeedReport = { readonly seconds: number; readonly identitySeconds: number; readonly assetsSeconds: number; readonly events: number; readonly path: string };

/** How the read model is built from the log: the real blue-green rebuild, or the projection's row operations applied in bulk. */
export type ReadModelPath = 'rebuild' | 'bulk';

type Identity = {
  readonly adminId: string;
  readonly callerId: string;
  readonly users: readonly string[];
  readonly organizations: readonly string[];
  readonly groups: readonly string[];
  readonly projects: readonly string[];
};

async function forEachLimit<T>(items: readonly T[], limit: number, work: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next;
        next += 1;
        await work(items[i] as T, i);
      }
    }),
  );
}

/**
 * Users, organizations, groups and projects through the service's own paths: users and
 * organization memberships as `cairn users create` / `cairn orgs add-member` do
 * (registerUser, orgsAddMember), the rest over HTTP as a system administrator. The caller
 * is a member of the first organization, of five groups and three projects there.
 */
async function seedIdentity(resources: Resources, counts: { users: number; organizations: number; groups: number; projects: number }, random: Random): Promise<Identity> {
  const port = 17_000 + Math.floor(Math.random() * 900);
  const running = await serve(resources, 'all', port);
  const http = keepAliveClient(running.url ?? `http://127.0.0.1:${port}`, 8);
  try {
    const adminToken = await issueBenchToken(resources);
    const adminId = (await resources.pool.query<{ id: string }>("select id from users where email = 'bench@example.org'")).rows[0]?.id ?? '';
    const post = async (path: string, body: unknown): Promise<{ id?: string }> => {
      const reply = await http.request('POST', path, { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, JSON.stringify(body));
      if (reply.status !== 201) throw new Error(`POST ${path}: ${reply.status} ${reply.body.slice(0, 300)}`);
      return JSON.parse(reply.body) as { id?: string };
    };
    const { id: callerId } = await usersCreate(resources, ['--email', callerEmail, '--name', 'Bench caller']);
    const users: string[] = Array.from({ length: counts.users }, () => randomUUID());
    const metadata = { requestId: null, correlationId: randomUUID(), causationId: 'bench:assets' };
    await forEachLimit(users, 8, async (id, i) => {
      await registerUser(resources.eventStore, { id: id as UserId, email: `owner${i}@bench.example`, name: `Owner ${i}`, isSystemAdmin: false }, { actor: operatorActor, now: new Date().toISOString() }, metadata);
    });
    const organizations: string[] = [];
    for (let i = 0; i < counts.organizations; i += 1) organizations.push((await post('/api/organizations/', { name: `Bench organization ${i}` })).id ?? '');
    const orgOf = (userIndex: number) => organizations[userIndex % organizations.length] as string;
    await orgsAddMember(resources, ['--org', organizations[0] ?? '', '--user', callerId, '--role', 'member']);
    const membersOf = (org: string) => users.filter((_, i) => orgOf(i) === org);
    // One writer per organization: its members are added to one stream, one after another.
    await forEachLimit(organizations, 8, async (org) => {
      for (const [i, id] of membersOf(org).entries()) await orgsAddMember(resources, ['--org', org, '--user', id, '--role', i === 0 ? 'admin' : 'member']);
    });

    const groups: string[] = [];
    await forEachLimit(
      Array.from({ length: counts.groups }, (_, i) => i),
      8,
      async (i) => {
        const org = organizations[i % organizations.length] as string;
        const id = (await post('/api/groups/', { organization_id: org, name: `Bench group ${i}`, description: 'Seeded by npm run bench -- assets' })).id ?? '';
        groups.push(id);
        const members = new Set(Array.from({ length: between(random, 3, 15) }, () => pick(random, membersOf(org))));
        if (i % organizations.length === 0 && i / organizations.length < 5) members.add(callerId);
        for (const user of members) await post(`/api/groups/${id}/members/`, { user_id: user });
      },
    );
    const projects: string[] = [];
    await forEachLimit(
      Array.from({ length: counts.projects }, (_, i) => i),
      8,
      async (i) => {
        const org = organizations[i % organizations.length] as string;
        const id = (await post('/api/projects/', { name: `Bench project ${i}`, organization_id: org })).id ?? '';
        projects.push(id);
        const members = new Map(Array.from({ length: between(random, 2, 10) }, () => [pick(random, membersOf(org)), pick(random, ['admin', 'member', 'member', 'viewer'])] as const));
        if (i % organizations.length === 0 && i / organizations.length < 3) members.set(callerId, i === 0 ? 'member' : 'viewer');
        for (const [user, role] of members) await post(`/api/projects/${id}/members/`, { user_id: user, role });
      },
    );
    return { adminId, callerId, users, organizations, groups, projects };
  } finally {
    http.close();
    await running.stop();
  }
}

type EventRow = [id: string, stream: string, version: number, type: string, schemaVersion: number, data: string, metadata: string];

const flagChoices = [1, 1 | 4, 1 | 4 | 16 | 64, 1 | 2 | 4 | 8, 1 | 2 | 4 | 8 | 16 | 32 | 64, 511];

/**
 * One asset's events as the service would record them: AssetCreated (its owner as actor),
 * AssetPermissionsSet (a `public` entry on 30 %, the caller's organization on the rest, so
 * the caller reads every asset, plus 0 to 4 grants to users, groups, projects and
 * organizations), AssetStarred by the caller on 10 % and by the owner on 5 %.
 */
function assetEvents(random: Random, n: number, createdAt: number, identity: Identity, versions: Record<string, number>): EventRow[] {
  const id = randomUUID();
  const stream = assets.assetStream(id);
  const r = random();
  const owner: assets.AssetOwner =
    r < 0.9 ? { ownerType: 'user', ownerId: skewed(random, identity.users, 1.5) } : r < 0.98 ? { ownerType: 'project', ownerId: pick(random, identity.projects) } : { ownerType: 'organization', ownerId: pick(random, identity.organizations) };
  const actor = owner.ownerType === 'user' ? owner.ownerId : identity.adminId;
  const at = (offsetMs: number) => new Date(createdAt + offsetMs).toISOString();
  const meta = (offsetMs: number, by: string) => JSON.stringify({ actorId: by, requestId: randomUUID(), correlationId: randomUUID(), causationId: null, occurredAt: at(offsetMs) });
  const details = assetDetails(random, n);
  const rows: EventRow[] = [];
  const created = { id, createdAt: at(0), collectionId: null, ...details, ...owner };
  rows.push([randomUUID(), stream, 1, 'AssetCreated', versions['AssetCreated'] ?? 1, JSON.stringify(created), meta(0, actor)]);

  const entries = new Map<string, assets.PermissionEntry>();
  const add = (subjectType: assets.SubjectType, subjectId: string | null, flags: number) => entries.set(`${subjectType}:${subjectId ?? ''}`, { subjectType, subjectId, flags });
  if (random() < 0.3) add('public', null, 1 | 4 | 16 | 64);
  else add('organization', identity.organizations[0] ?? '', pick(random, flagChoices.slice(0, 3)));
  for (let i = between(random, 0, 4); i > 0; i -= 1) {
    const kind = random();
    if (kind < 0.45) add('user', pick(random, identity.users), pick(random, flagChoices));
    else if (kind < 0.75) add('group', pick(random, identity.groups), pick(random, flagChoices));
    else if (kind < 0.95) add('project', pick(random, identity.projects), pick(random, flagChoices));
    else add('organization', pick(random, identity.organizations), pick(random, flagChoices));
  }
  // Stored as the decider stores them: sorted by subject type, then id.
  const sorted = [...entries.values()].sort((a, b) => a.subjectType.localeCompare(b.subjectType) || (a.subjectId ?? '').localeCompare(b.subjectId ?? ''));
  rows.push([randomUUID(), stream, 2, 'AssetPermissionsSet', versions['AssetPermissionsSet'] ?? 1, JSON.stringify({ assetId: id, entries: sorted, via: 'replace' }), meta(between(random, 1, 30) * 1000, actor)]);
  let version = 3;
  const star = (userId: string) =>
    rows.push([randomUUID(), stream, version++, 'AssetStarred', versions['AssetStarred'] ?? 1, JSON.stringify({ assetId: id, userId, assetCreatedAt: at(0) }), meta(between(random, 60, 86_400 * 30) * 1000, userId)]);
  if (random() < 0.1) star(identity.callerId);
  if (owner.ownerType === 'user' && random() < 0.05) star(owner.ownerId);
  return rows;
}

const insertEventsSql = `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
  select u.id, u.stream, u.version, u.type, u.schema_version, u.data, u.metadata
  from unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[]) with ordinality as u(id, stream, version, type, schema_version, data, metadata, ord)
  order by u.ord`;

/** The asset events of `count` assets, one multi-row INSERT per `chunk` assets (each its own transaction), in the order an asset's stream has them. */
async function fillAssetLog(pool: pg.Pool, count: number, identity: Identity, random: Random, onChunk: (rows: EventRow[]) => Promise<void>, chunk = 5000): Promise<number> {
  const versions = Object.fromEntries(assets.assetEventTypes.map((t) => [t, currentVersionOf(eventCatalog, t)]));
  const start = Date.UTC(2024, 0, 1);
  let events = 0;
  // Every asset's events in one chunk: the bulk path relies on it.
  for (let from = 0; from < count; from += chunk) {
    const rows: EventRow[] = [];
    // One minute apart plus up to 59 s: created_at distinct and increasing along the log.
    for (let n = from; n < Math.min(count, from + chunk); n += 1) rows.push(...assetEvents(random, n, start + n * 60_000 + Math.floor(random() * 59_000), identity, versions));
    const columns = [0, 1, 2, 3, 4, 5, 6].map((c) => rows.map((row) => row[c]));
    // The log's insert and the read model's (on another connection) at the same time.
    await Promise.all([pool.query(insertEventsSql, columns), onChunk(rows)]);
    events += rows.length;
  }
  return events;
}

/** Builds the seeded database `name` (dropped first if it exists). */
async function seedDatabase(name: string, count: number, path: ReadModelPath, log: (line: string) => void): Promise<SeedReport> {
  const url = databaseUrl(name);
  const started = performance.now();
  const config = loadConfig({ DATABASE_URL: url, CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl });
  // A seed is written once and checkpointed at the end: its commits need not wait for the disk.
  await adminQuery(`alter database ${name} set synchronous_commit = off`);
  // Seeding builds indexes and vacuums for minutes: no statement bound (the service's is 30 s).
  const resources = await openResources(config, { logger: createLogger('silent'), queryTimeout: false });
  try {
    const random = seededRandom(20261123);
    const users = Math.max(50, Math.min(3000, Math.round(count / 333)));
    const counts = { users, organizations: Math.max(3, Math.min(12, Math.round(users / 250))), groups: Math.max(10, Math.min(300, Math.round(users / 10))), projects: Math.max(5, Math.min(150, Math.round(users / 20))) };
    const identity = await seedIdentity(resources, counts, random);
    const identitySeconds = (performance.now() - started) / 1000;
    log(`  identity: ${counts.users} users, ${counts.organizations} organizations, ${counts.groups} groups, ${counts.projects} projects in ${identitySeconds.toFixed(1)} s (service paths)`);

    const logStarted = performance.now();
    let events = 0;
    let readModelSeconds = 0;
    if (path === 'bulk') {
      // The log and the read model side by side: each chunk's events through project(), applied in bulk.
      const apply = { seconds: 0 };
      const { indexSeconds } = await withSecondaryIndexesDropped(resources.pool, assetsProjection.tables, async () => {
        events = await fillAssetLog(resources.pool, count, identity, random, async (rows) => {
          const at = performance.now();
          await applyFreshRowOps(resources.pool, assetsProjection, rows.map(([id, streamId, , type, schemaVersion, data, metadata]) => ({ id, streamId, type, schemaVersion, data: JSON.parse(data) as unknown, metadata: JSON.parse(metadata) as EventMetadata })));
          apply.seconds += (performance.now() - at) / 1000;
        });
        const indexing = performance.now();
        log(`  log + row operations: ${events.toLocaleString('en-US')} events in ${((indexing - logStarted) / 1000).toFixed(1)} s (of which read-model inserts ${apply.seconds.toFixed(1)} s)`);
      });
      log(`  secondary indexes built again: ${indexSeconds.toFixed(1)} s`);
    } else {
      events = await fillAssetLog(resources.pool, count, identity, random, async () => undefined);
      log(`  log: ${events.toLocaleString('en-US')} events in ${((performance.now() - logStarted) / 1000).toFixed(1)} s (multi-row INSERT, 5,000 assets a statement)`);
      const rebuildStarted = performance.now();
      await rebuildBlueGreen({ db: resources.db, eventStore: resources.eventStore, logger: createLogger('silent'), inline: true, batchSize: 5000 }, assetsProjection);
      readModelSeconds = (performance.now() - rebuildStarted) / 1000;
      log(`  read model: cairn projections rebuild assets in ${readModelSeconds.toFixed(1)} s (${Math.round(events / readModelSeconds).toLocaleString('en-US')} events/s)`);
    }
    const vacuum = performance.now();
    // The ordered postings too: a walk reads them index-only only once the visibility map says so (autovacuum would, later).
    await resources.pool.query('vacuum (analyze) assets, asset_stars, asset_permissions, asset_tag_order, asset_metadata_order, asset_metadata_numbers, events');
    // Every other table's statistics too, as autovacuum would have them: without, PostgreSQL took the 150 projects for 75 restricted ones and scanned them in every listing statement.
    await resources.pool.query('analyze');
    await resources.pool.query('checkpoint').catch(() => undefined);
    log(`  vacuum analyze + checkpoint: ${((performance.now() - vacuum) / 1000).toFixed(1)} s`);
    return { seconds: (performance.now() - started) / 1000, identitySeconds, assetsSeconds: (performance.now() - logStarted) / 1000, events, path };
  } finally {
    await resources.close();
    await adminQuery(`alter database ${name} reset synchronous_commit`);
  }
}

/** One statement on the server's maintenance database (create, copy and drop databases). */
export async function adminQuery<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return (await admin.query<T>(text, values)).rows;
  } finally {
    await admin.end();
  }
}

/**
 * The template database of `count` seeded assets: made once (or again with `reseed`) under
 * a building name, renamed when complete, so an interrupted seeding never passes for one.
 */
export async function ensureAssetTemplate(count: number, options: { reseed: boolean; path: ReadModelPath }, log: (line: string) => void): Promise<{ name: string; seeded: SeedReport | null }> {
  const name = assetTemplateName(count);
  const exists = (await adminQuery('select 1 from pg_database where datname = $1', [name])).length > 0;
  if (exists && !options.reseed) {
    await migrateTemplate(name, log);
    return { name, seeded: null };
  }
  const building = `${name}_building`;
  await adminQuery(`drop database if exists ${building} with (force)`);
  await adminQuery(`create database ${building}`);
  log(`seeding ${count.toLocaleString('en-US')} assets into ${name} (${options.path})`);
  const seeded = await seedDatabase(building, count, options.path, log);
  await adminQuery(`drop database if exists ${name} with (force)`);
  await adminQuery(`alter database ${building} rename to ${name}`);
  return { name, seeded };
}

/**
 * A template seeded under older migrations, brought up to this version's in place, once:
 * otherwise each run's copy applied them again when its service started (migration 0053
 * takes 35 s over the 1,000,000-asset template). Its connections end before any copy is
 * made of it (a template must have none).
 */
export async function migrateTemplate(name: string, log: (line: string) => void): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl(name), max: 1 });
  try {
    const started = performance.now();
    const applied = await migrate(pool);
    if (applied.length > 0) log(`template ${name} migrated (${applied.join(', ')}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await pool.end();
  }
}

/** A copy of the template for one run (file copy: no WAL for the whole database), dropped afterwards. */
export async function withAssetDatabase<T>(template: string, work: (url: string, name: string) => Promise<T>): Promise<T> {
  const name = `cairn_bench_assets_run_${Date.now().toString(36)}`;
  await adminQuery(`create database ${name} template ${template} strategy file_copy`);
  try {
    return await work(databaseUrl(name), name);
  } finally {
    await adminQuery(`drop database if exists ${name} with (force)`);
  }
}
