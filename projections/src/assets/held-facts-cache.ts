import { sql, type RawBuilder } from 'kysely';
import { poolOf, type ReadDb } from '../schema.ts';
import type { DocumentViewer } from './asset-document.ts';
import type { HeldFactRow } from './held-collections.ts';

/**
 * What every caller reads alike of a collection that holds a page's assets (texts as
 * PostgreSQL writes them): its readers and its assets' readers (comma-separated), its
 * entries and what flows down to it (grant maps as JSON).
 */
export type SharedHeldFacts = { readonly readers: string; readonly assetReaders: string; readonly entries: string; readonly inherited: string };

/**
 * The collections' shared facts this process has read, under the version they were read at
 * (migration 0054). A page statement given that version leaves the facts of its collections
 * out when it still reads the same one, in its own snapshot: then no event has changed any
 * existing collection's readers or grants since, and the kept facts are those of the page's
 * snapshot. Looking up the hundred collections of a page was a sixth of the mixed
 * benchmark's SQL (docs/benchmarks.md, twenty-first sitting).
 */
export type HeldFactsCache = {
  version: string | null;
  readonly facts: Map<string, SharedHeldFacts>;
  bytes: number;
  /** The version whose collections were read all at once (loadAllHeldFacts), or are being read. */
  loadedFor?: string | null;
  /** That reading, while it runs. */
  loading?: Promise<void> | null;
  /** When the last one started (ms since the epoch). */
  loadedAt?: number | undefined;
};

/**
 * What the kept facts may weigh per database server (their texts, two bytes a character);
 * the oldest go first. A collection's texts grow with its entries and its ancestors', so
 * the bound is in bytes, and one collection heavier than a sixty-fourth of it is never kept.
 */
export const heldFactsKeptBytes = 16 * 1024 * 1024;

const weightOf = (f: SharedHeldFacts) => 2 * (f.readers.length + f.assetReaders.length + f.entries.length + f.inherited.length) + 96;

const caches = new WeakMap<object, HeldFactsCache>();

/** The cache of the server `db` reads from (each standby's pool its own: their snapshots differ). */
export function heldFactsCacheOf(db: ReadDb): HeldFactsCache {
  const key: object = poolOf(db) ?? db;
  let cache = caches.get(key);
  if (!cache) {
    cache = { version: null, facts: new Map(), bytes: 0 };
    caches.set(key, cache);
  }
  return cache;
}

/**
 * The version as a statement reads it: the id of the last event that changed a collection's
 * facts ('none' before any); the table's file, which a rebuild's swap and a reset's truncate
 * both change (a replay writes the same ids again, maybe by other code); and the migrations
 * applied, counted and the last named (one may rewrite what the collections' generated
 * columns hold, even one applied out of order).
 */
export const factsVersionSql: RawBuilder<string> = sql<string>`(select coalesce((select v.version from collection_facts_version v), 'none')
  || '@' || pg_relation_filenode('collection_facts_version')::text || '@' || (select count(*) || ':' || coalesce(max(m.name), '') from schema_migrations m))`;

/**
 * Keeps facts read under `version`. The cache moves to another version only from the one
 * the reader found kept when it started (`replaces`, undefined: never): two requests that
 * read different versions do not take the cache back and forth, and a slow one does not
 * take it back to an older version.
 */
export function keepHeldFacts(cache: HeldFactsCache, version: string, read: ReadonlyMap<string, SharedHeldFacts>, replaces?: string | null): void {
  if (cache.version !== version) {
    if (replaces === undefined || cache.version !== replaces) return;
    cache.version = version;
    cache.facts.clear();
    cache.bytes = 0;
  }
  for (const [id, facts] of read) {
    const weight = weightOf(facts);
    if (weight > heldFactsKeptBytes / 64) continue;
    const old = cache.facts.get(id);
    if (old) cache.bytes -= weightOf(old);
    cache.facts.delete(id);
    cache.facts.set(id, facts);
    cache.bytes += weight;
  }
  for (const [oldest, facts] of cache.facts) {
    if (cache.bytes <= heldFactsKeptBytes) break;
    cache.facts.delete(oldest);
    cache.bytes -= weightOf(facts);
  }
}

/** At most this many collections are read all at once when a version is first seen (loadAllHeldFacts). */
export const heldFactsLoadedMost = 20_000;

/**
 * And at most once in this many milliseconds: reading 13,153 collections took 140–320 ms on
 * the bench, and a caller who sets the entries of a collection of its own again and again
 * would otherwise have every process read them all each time.
 */
export const heldFactsLoadedEvery = 10_000;

/**
 * Reads every collection's shared facts once per version, in the background, when there are
 * at most `heldFactsLoadedMost` and none was read in the last `heldFactsLoadedEvery` ms: a
 * page names a hundred collections of thousands, so filling the cache page by page took more
 * than a thousand pages, each of which read what it lacked in a statement of its own. More
 * collections than that, or a version soon after another, are read as pages name them.
 */
export function loadAllHeldFacts(db: ReadDb, cache: HeldFactsCache, version: string): void {
  if (cache.loadedFor === version) return;
  // Too soon after the last: a page of this version past the interval starts it.
  const now = Date.now();
  if (cache.loadedAt !== undefined && now - cache.loadedAt < heldFactsLoadedEvery) return;
  cache.loadedFor = version;
  cache.loadedAt = now;
  const loading = (async () => {
    const { rows } = await sql<HeldFactsRow>`
      ${sharedFactsSelected}
      from (select 1) one left join lateral (select c.id, c.readers, c.asset_readers, c.entry_grants, c.inherited_grants from collections c order by c.id limit ${heldFactsLoadedMost + 1}) k on true`.execute(db);
    if (rows.length > heldFactsLoadedMost) return;
    const read = factsOfRows(rows);
    if (read.version === version) keepHeldFacts(cache, version, read.facts);
  })()
    .catch(() => {
      // Pages read what they lack themselves; the next version tries again.
    })
    .finally(() => {
      if (cache.loading === loading) cache.loading = null;
    });
  cache.loading = loading;
}

/** The version, then the shared facts of the collection `k`, as HeldFactsRow reads them. */
const sharedFactsSelected = sql`select ${factsVersionSql} as version, k.id, array_to_string(k.readers, ',') as readers,
  array_to_string(k.asset_readers, ',') as asset_readers, k.entry_grants::text as entries, k.inherited_grants::text as inherited`;

type HeldFactsRow = { version: string; id: string | null; readers: string; asset_readers: string; entries: string; inherited: string };

const factsOfRows = (rows: readonly HeldFactsRow[]) => {
  const facts = new Map<string, SharedHeldFacts>();
  for (const row of rows) if (row.id !== null) facts.set(row.id, { readers: row.readers, assetReaders: row.asset_readers, entries: row.entries, inherited: row.inherited });
  return { version: rows[0]?.version ?? null, facts };
};

/** Whether one of the comma-separated principals of `list` is the caller's. */
function holdsCallers(list: string, viewer: DocumentViewer): boolean {
  let start = 0;
  while (start < list.length) {
    const comma = list.indexOf(',', start);
    const end = comma === -1 ? list.length : comma;
    if (viewer.find(list, start, end) !== undefined) return true;
    start = end + 1;
  }
  return false;
}

/** A collection's facts for this caller, from those every caller shares. */
export const callerHeldFact = (id: string, shared: SharedHeldFacts, viewer: DocumentViewer): HeldFactRow => ({
  id,
  visible: viewer.isSystemAdmin || holdsCallers(shared.readers, viewer),
  reads: holdsCallers(shared.assetReaders, viewer) ? 't' : null,
  entries: shared.entries,
  inherited: shared.inherited,
});

/**
 * The kept facts of the collections `ids`, for a page whose statement read `version`, the
 * one kept, and so left them out: taken from the cache in the same synchronous step as its
 * version is checked, and those it lacks read under the same version and kept. Undefined when
 * the version moved before they were read: they would not be the page's.
 */
export async function keptFactsOf(db: ReadDb, cache: HeldFactsCache, version: string, ids: readonly string[]): Promise<Map<string, SharedHeldFacts> | undefined> {
  const kept = cache.version === version ? cache.facts : new Map<string, SharedHeldFacts>();
  const named = new Map<string, SharedHeldFacts>();
  const missing: string[] = [];
  for (const id of ids) {
    const facts = kept.get(id);
    if (facts) named.set(id, facts);
    else missing.push(id);
  }
  if (missing.length === 0) return named;
  const got = await readHeldFacts(db, missing);
  if (got.version !== version) return undefined;
  keepHeldFacts(cache, version, got.facts);
  for (const [id, facts] of got.facts) named.set(id, facts);
  return named;
}

/** The collections named by rows' `held_in` (ids, comma-separated), once each. */
export function namedCollections(heldIn: readonly (string | null | undefined)[]): string[] {
  const ids = new Set<string>();
  for (const text of heldIn) if (text) for (const id of text.split(',')) ids.add(id);
  return [...ids];
}

/**
 * The shared facts of the collections `ids`, with the version they were read at; absent
 * ones (deleted) are left out. One row at least, so that the version comes back.
 */
export async function readHeldFacts(db: ReadDb, ids: readonly string[]): Promise<{ version: string | null; facts: Map<string, SharedHeldFacts> }> {
  const { rows } = await sql<HeldFactsRow>`
    ${sharedFactsSelected}
    from (select 1) one left join collections k on k.id = any(${[...ids]}::uuid[])`.execute(db);
  return factsOfRows(rows);
}
