import { randomUUID } from 'node:crypto';
import { openResources, usersCreate, type Resources } from '@cairn/cli';
import { assets, collections, currentVersionOf, eventCatalog, type EventMetadata } from '@cairn/domain';
import { createLogger, loadConfig, type ProjectedEvent } from '@cairn/platform';
import { assetsProjection, collectionsProjection, type Projection, type ReadExecutor, type RowOp } from '@cairn/projections';
import type pg from 'pg';
import { between, pick, seededRandom, skewed, type Random } from './asset-data.ts';
import { adminQuery, callerEmail, ensureAssetTemplate, migrateTemplate } from './asset-seed.ts';
import { applyFreshRowOps, withSecondaryIndexesDropped } from './bulk-row-ops.ts';
import { benchPublicUrl } from './cairn-process.ts';
import { interleave, planForest, shares, type CollectionSize, type Facts, type Node } from './collection-forest.ts';
import { databaseUrl } from './scratch-database.ts';

/** Reads assets only through collection grants: the move's effect on visibility shows in what it may open. */
export const observerEmail = 'observer@bench.example';

/** `cairn_bench_collections_1m` for 1,000,000 assets in 10,000 collections, `cairn_bench_collections_50000_500` otherwise. */
export const collectionTemplateName = (size: CollectionSize) =>
  size.assets === 1_000_000 && size.collections === 10_000 ? 'cairn_bench_collections_1m' : `cairn_bench_collections_${size.assets}_${size.collections}`;

export type CollectionSeedReport = {
  readonly seconds: number;
  readonly collectionEvents: number;
  readonly attachEvents: number;
  readonly steps: readonly string[];
};

type EventRow = [id: string, stream: string, version: number, type: string, schemaVersion: number, data: string, metadata: string];

const insertEventsSql = `insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
  select u.id, u.stream, u.version, u.type, u.schema_version, u.data, u.metadata
  from unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[]) with ordinality as u(id, stream, version, type, schema_version, data, metadata, ord)
  order by u.ord`;

/** Who is there after the asset seed (identity through the service's paths), and the roots it made. */
async function readFacts(pool: pg.Pool, observerId: string): Promise<Facts> {
  const one = async (text: string, values: unknown[] = []) => (await pool.query<{ id: string }>(text, values)).rows[0]?.id ?? '';
  const ids = async (text: string, values: unknown[] = []) => (await pool.query<{ id: string }>(text, values)).rows.map((r) => r.id);
  const adminId = await one("select id from users where email = 'bench@example.org'");
  const callerId = await one('select id from users where email = $1', [callerEmail]);
  const { rows: users } = await pool.query<{ id: string; root: string }>(
    `select u.id, c.id as root from users u join collections c on c.owner_user_id = u.id and c.is_root
     where u.email like 'owner%@bench.example' order by substring(u.email from 'owner([0-9]+)@')::int`,
  );
  const { rows: projectRoots } = await pool.query<{ id: string; root: string }>('select owner_project_id as id, id as root from collections where is_root and owner_project_id is not null order by created_at, id');
  return {
    adminId,
    callerId,
    observerId,
    owners: users.map((u) => ({ ownerType: 'user', ownerId: u.id, root: u.root, actor: u.id })),
    projectOwners: projectRoots.map((p) => ({ ownerType: 'project', ownerId: p.id, root: p.root, actor: adminId })),
    organizations: await ids('select id from organizations order by created_at, id'),
    groups: await ids('select id from groups order by created_at, id'),
    projects: await ids('select id from projects order by created_at, id'),
    callerGroups: await ids('select group_id as id from group_members where user_id = $1 order by group_id', [callerId]),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const meta = (actor: string, at: number) => JSON.stringify({ actorId: actor, requestId: randomUUID(), correlationId: randomUUID(), causationId: null, occurredAt: iso(at) });

/** CollectionCreated (and CollectionPermissionsSet when it has entries) of each collection, as the decider records them. */
function collectionEvents(order: readonly Node[], random: Random): EventRow[] {
  const version = (type: string) => currentVersionOf(eventCatalog, type);
  const start = Date.UTC(2024, 0, 1);
  const step = (700 * 86_400_000) / Math.max(1, order.length);
  const rows: EventRow[] = [];
  for (const [i, c] of order.entries()) {
    const at = start + Math.round(i * step);
    const stream = collections.collectionStream(c.id);
    const created: collections.CollectionCreated['data'] = {
      id: c.id as collections.CollectionId,
      title: c.title,
      description: `Seeded by npm run bench -- collections (level ${c.level}).`,
      alias: c.alias,
      tags: [],
      type: [],
      license: '',
      preferredRepositoryId: null,
      parentId: c.parentId,
      ownerType: c.owner.ownerType,
      ownerUserId: c.owner.ownerType === 'user' ? c.owner.ownerId : null,
      ownerProjectId: c.owner.ownerType === 'project' ? c.owner.ownerId : null,
      isRoot: false,
      revision: 1,
    };
    rows.push([randomUUID(), stream, 1, 'CollectionCreated', version('CollectionCreated'), JSON.stringify(created), meta(c.owner.actor, at)]);
    if (c.entries.length > 0) {
      const set: collections.CollectionPermissionsSet['data'] = { id: c.id as collections.CollectionId, entries: c.entries, revision: 2 };
      rows.push([randomUUID(), stream, 2, 'CollectionPermissionsSet', version('CollectionPermissionsSet'), JSON.stringify(set), meta(c.owner.actor, at + between(random, 1, 30) * 1000)]);
    }
  }
  return rows;
}

const projected = (rows: readonly EventRow[]): ProjectedEvent[] =>
  rows.map(([id, streamId, , type, schemaVersion, data, metadata]) => ({ id, streamId, type, schemaVersion, data: JSON.parse(data) as unknown, metadata: JSON.parse(metadata) as EventMetadata }));

/**
 * The collections' events into the log and their rows as the projection leaves them: the
 * row operations applied in bulk (bulk-row-ops.ts), then each CollectionCreated's own tree
 * step (the projection's statement: the parent's chain plus the parent, the parent's
 * entries and inherited grants OR-ed), in log order, so every parent is complete before
 * its children. The tree steps of CollectionPermissionsSet (OR the ancestors' entries into
 * the whole subtree) are left out: run after the entries are all in place they write
 * what the creations' steps already did (`cairn projections verify` checks it).
 */
async function seedCollections(resources: Resources, order: readonly Node[], random: Random, log: (line: string) => void): Promise<number> {
  const rows = collectionEvents(order, random);
  const started = performance.now();
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = rows.slice(i, i + 5000);
    await resources.pool.query(insertEventsSql, [0, 1, 2, 3, 4, 5, 6].map((c) => chunk.map((row) => row[c])));
  }
  const events = projected(rows);
  const treeSteps: ((db: ReadExecutor) => Promise<void>)[] = [];
  for (const event of events) {
    if (event.type !== 'CollectionCreated') continue;
    for (const op of collectionsProjection.project(event) as RowOp[]) if (op.kind === 'custom') treeSteps.push(op.run);
  }
  const rowOpsOnly: Projection = { ...collectionsProjection, project: (event) => (collectionsProjection.project(event) as RowOp[]).filter((op) => op.kind !== 'custom') };
  const { indexSeconds } = await withSecondaryIndexesDropped(resources.pool, collectionsProjection.tables, async () => {
    await applyFreshRowOps(resources.pool, rowOpsOnly, events);
    await resources.db.transaction().execute(async (trx) => {
      for (const step of treeSteps) await step(trx);
    });
    await resources.pool.query('vacuum full collections');
  });
  log(`  collections: ${order.length.toLocaleString('en-US')} (${rows.length.toLocaleString('en-US')} events) in ${((performance.now() - started) / 1000).toFixed(1)} s, ${treeSteps.length.toLocaleString('en-US')} tree steps, indexes ${indexSeconds.toFixed(1)} s`);
  return rows.length;
}

/** The one update the assets projection makes of AssetCollectionsChanged, checked, so the SQL below stays what project() says. */
function checkAttachShape(): void {
  const id = randomUUID();
  const ids = [randomUUID()];
  const ops = assetsProjection.project({
    id: randomUUID(),
    streamId: assets.assetStream(id),
    type: 'AssetCollectionsChanged',
    schemaVersion: currentVersionOf(eventCatalog, 'AssetCollectionsChanged'),
    data: { assetId: id, collectionIds: ids, added: ids[0], removed: null },
    metadata: { actorId: id, requestId: null, correlationId: id, causationId: null, occurredAt: iso(0) },
  }) as RowOp[];
  // The update of collection_ids, then the custom step that remakes the asset's collection_assets rows from it.
  const expected = [{ kind: 'update', table: 'assets', match: { id }, set: { collection_ids: ids }, add: {}, greatest: {}, copy: null }, { kind: 'custom' }];
  const shape = ops.map((op) => (op.kind === 'custom' ? { kind: 'custom' } : op));
  if (JSON.stringify(shape) !== JSON.stringify(expected)) throw new Error(`the assets projection no longer applies AssetCollectionsChanged as an update of collection_ids and a remake of collection_assets: ${JSON.stringify(ops)}; update collections-seed.ts`);
}

/**
 * Every asset gets a home collection (AssetCollectionsChanged, by the collection's owner):
 * 5 % one of the moved subtree's collections, the rest the other collections, skewed so
 * that sizes vary; 20 % are then attached to the large collection too (a second event).
 * Events and `assets.collection_ids` go in with one statement each per 50,000 assets, the
 * update with the table's secondary indexes dropped, then the table is compacted.
 */
async function attachAssets(resources: Resources, plan: { order: readonly Node[]; moved: readonly Node[]; large: Node }, random: Random, log: (line: string) => void): Promise<number> {
  checkAttachShape();
  const started = performance.now();
  const { rows: all } = await resources.pool.query<{ id: string; at: Date }>('select id, created_at as at from assets order by created_at, id');
  const moved = new Set(plan.moved.map((c) => c.id));
  const others = plan.order.filter((c) => !moved.has(c.id) && c.id !== plan.large.id);
  // Shuffled, so that the skew does not follow the log order.
  for (let i = others.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [others[i], others[j]] = [others[j] as Node, others[i] as Node];
  }
  const version = currentVersionOf(eventCatalog, 'AssetCollectionsChanged');
  let events = 0;
  const { indexSeconds } = await withSecondaryIndexesDropped(resources.pool, ['assets'], async () => {
    for (let from = 0; from < all.length; from += 50_000) {
      const chunk = all.slice(from, from + 50_000);
      const home = chunk.map(() => (random() < shares.movedAssets ? pick(random, plan.moved) : skewed(random, others, 1.3)));
      const extra = chunk.map(() => (random() < shares.large ? plan.large : null));
      const values = [chunk.map((a) => a.id), home.map((c) => c.id), extra.map((c) => c?.id ?? null), home.map((c) => c.owner.actor), extra.map((c) => c?.owner.actor ?? null), chunk.map((a) => a.at)];
      const inserted = await resources.pool.query(
        `with b as (select * from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::uuid[], $6::timestamptz[]) with ordinality as b(asset_id, home, extra, home_actor, extra_actor, at, ord))
         insert into events (event_id, stream_id, stream_version, type, schema_version, data, metadata)
         select gen_random_uuid(), 'asset-' || b.asset_id, h.v + k.n, 'AssetCollectionsChanged', $7,
           jsonb_build_object('assetId', b.asset_id, 'collectionIds', k.ids, 'added', k.added, 'removed', null),
           jsonb_build_object('actorId', k.actor, 'requestId', gen_random_uuid(), 'correlationId', gen_random_uuid(), 'causationId', null,
             'occurredAt', to_char((b.at + k.n * interval '1 hour') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         from b cross join lateral (select max(e.stream_version) as v from events e where e.stream_id = 'asset-' || b.asset_id) h
           cross join lateral (values (1, array[b.home], b.home, b.home_actor), (2, array[b.home, b.extra], b.extra, b.extra_actor)) k(n, ids, added, actor)
         where k.n = 1 or b.extra is not null
         order by b.ord, k.n`,
        [...values, version],
      );
      events += inserted.rowCount ?? 0;
      await resources.pool.query(
        `update assets a set collection_ids = case when b.extra is null then array[b.home] else array[b.home, b.extra] end
         from unnest($1::uuid[], $2::uuid[], $3::uuid[]) b(asset_id, home, extra) where a.id = b.asset_id`,
        values.slice(0, 3),
      );
    }
    log(`  attachments: ${events.toLocaleString('en-US')} AssetCollectionsChanged events and ${all.length.toLocaleString('en-US')} asset rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // What the custom step makes of each asset's last AssetCollectionsChanged (and migration 0018 of existing rows).
    const memberships = performance.now();
    const made = await resources.pool.query(`insert into collection_assets (collection_id, asset_id, created_at, updated_at, title, creator)
      select held.id, a.id, a.created_at, a.updated_at, a.title, coalesce(a.created_by, '00000000-0000-0000-0000-000000000000')
      from assets a cross join lateral unnest(a.collection_ids) as held(id) on conflict do nothing`);
    log(`  collection_assets: ${(made.rowCount ?? 0).toLocaleString('en-US')} rows in ${((performance.now() - memberships) / 1000).toFixed(1)} s`);
    const compacting = performance.now();
    await resources.pool.query('vacuum full assets');
    log(`  vacuum full assets: ${((performance.now() - compacting) / 1000).toFixed(1)} s`);
  });
  log(`  assets' secondary indexes built again: ${indexSeconds.toFixed(1)} s`);
  return events;
}

async function seedDatabase(name: string, size: CollectionSize, log: (line: string) => void): Promise<CollectionSeedReport> {
  const started = performance.now();
  const steps: string[] = [];
  const say = (line: string) => {
    steps.push(line.trim());
    log(line);
  };
  await adminQuery(`alter database ${name} set synchronous_commit = off`);
  const config = loadConfig({ DATABASE_URL: databaseUrl(name), CAIRN_LOG_LEVEL: 'silent', CAIRN_PUBLIC_URL: benchPublicUrl });
  // Seeding builds indexes and vacuums for minutes: no statement bound (the service's is 30 s).
  const resources = await openResources(config, { logger: createLogger('silent'), queryTimeout: false });
  try {
    const { id: observerId } = await usersCreate(resources, ['--email', observerEmail, '--name', 'Bench observer']);
    const random = seededRandom(20261124);
    const facts = await readFacts(resources.pool, observerId);
    const plan = planForest(random, size, facts);
    const order = interleave(random, plan.trees);
    const collectionEventCount = await seedCollections(resources, order, random, say);
    const attachEvents = await attachAssets(resources, { order, moved: plan.moved, large: plan.large }, random, say);
    const vacuum = performance.now();
    await resources.pool.query('vacuum (analyze) assets, asset_tag_order, asset_metadata_order, asset_metadata_numbers, collection_assets, collections, collection_permissions, collection_reader_order, events');
    await resources.pool.query('analyze');
    await resources.pool.query('checkpoint').catch(() => undefined);
    say(`  vacuum analyze + checkpoint: ${((performance.now() - vacuum) / 1000).toFixed(1)} s`);
    return { seconds: (performance.now() - started) / 1000, collectionEvents: collectionEventCount, attachEvents, steps };
  } finally {
    await resources.close();
    await adminQuery(`alter database ${name} reset synchronous_commit`);
  }
}

/**
 * The template of `size`: a copy of the asset template of as many assets (seeded first if
 * missing), with the collections' events and rows added, under a building name renamed
 * when complete, so an interrupted seeding never passes for one.
 */
export async function ensureCollectionTemplate(size: CollectionSize, options: { reseed: boolean }, log: (line: string) => void): Promise<{ name: string; assetTemplate: string; seeded: CollectionSeedReport | null }> {
  const name = collectionTemplateName(size);
  const exists = (await adminQuery('select 1 from pg_database where datname = $1', [name])).length > 0;
  const assetTemplate = await ensureAssetTemplate(size.assets, { reseed: false, path: 'bulk' }, log);
  if (exists && !options.reseed) {
    await migrateTemplate(name, log);
    return { name, assetTemplate: assetTemplate.name, seeded: null };
  }
  const building = `${name}_building`;
  await adminQuery(`drop database if exists ${building} with (force)`);
  const copying = performance.now();
  await adminQuery(`create database ${building} template ${assetTemplate.name} strategy file_copy`);
  log(`seeding ${size.collections.toLocaleString('en-US')} collections over ${size.assets.toLocaleString('en-US')} assets into ${name} (the asset template copied in ${((performance.now() - copying) / 1000).toFixed(1)} s)`);
  const seeded = await seedDatabase(building, size, log);
  await adminQuery(`drop database if exists ${name} with (force)`);
  await adminQuery(`alter database ${building} rename to ${name}`);
  return { name, assetTemplate: assetTemplate.name, seeded };
}
