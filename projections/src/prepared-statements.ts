import { routedPool, statementName, type ReadPools } from '@cairn/platform';
import { sql, type CompiledQuery, type QueryExecutorProvider, type RawBuilder } from 'kysely';
import type pg from 'pg';

const marker = '/* cairn:prepared */';

/**
 * Put first in a statement whose shape never changes and whose plan does not depend on its
 * parameters (a read by key): it is then prepared once per connection under a name made
 * from its text, and PostgreSQL soon reuses one plan instead of planning it on every call
 * (planning was more than half of a read by id). Not for listings: their plans depend on
 * who asks (docs/assets.md).
 */
export const preparedStatement = sql.raw(marker);

const planMarker = '/* cairn:kept-plan */';

/**
 * Put first in a listing statement whose plan is fixed by its own shape (a driven walk,
 * page-statements.ts: fenced subqueries, the caller's visibility checked on the rows the
 * walk meets), so that no parameter changes which plan is best: once a shape has run
 * `keptPlanAfter` times in the process, and while fewer than the process's bound of shapes
 * are kept (CAIRN_LISTING_PLANS_KEPT), it is prepared per connection like
 * `preparedStatement`, and PostgreSQL plans it once instead of at every page (planning was
 * half a millisecond of a 1–3 ms statement, docs/benchmarks.md, tenth sitting). A kept
 * shape costs its connection's backend about 0.4 MB, hence the bound; shapes beyond it run
 * as before.
 */
export const keptPlan = sql.raw(planMarker);

const collectionPlanMarker = '/* cairn:kept-plan collections */';

/**
 * `keptPlan` for the collection listings' pages (a collection's assets, the collections),
 * kept in places of their own: as many shapes again as the asset listings'
 * (`CAIRN_LISTING_PLANS_KEPT`), so that clients walking collections in every ordering cannot
 * take the asset listings' places, nor the other way round.
 */
export const keptCollectionPlan = sql.raw(collectionPlanMarker);

/** Runs of a listing shape before its plan is kept: shapes run once or twice (a caller's first page) take no place. */
const keptPlanAfter = 3;
/** How many uses of shapes not kept are counted at most, before the counts start again. */
const countedShapes = 1_000;
/** The shapes kept so far and how many may be, for the asset listings and for the collection listings. */
const places = { assets: { kept: new Set<string>(), limit: 32 }, collections: { kept: new Set<string>(), limit: 32 } };
const shapeRuns = new Map<string, number>();

/** How many asset listing shapes a process keeps plans of (CAIRN_LISTING_PLANS_KEPT), and as many collection listing shapes; 0 keeps none. */
export function keepListingPlans(limit: number): void {
  places.assets.limit = limit;
  places.collections.limit = limit;
  places.assets.kept.clear();
  places.collections.kept.clear();
  shapeRuns.clear();
}

/** Whether a statement of this listing shape is sent prepared: counted, and kept once it ran `keptPlanAfter` times while its family's places remain. */
export function mayKeepPlan(text: string): boolean {
  const { kept, limit } = text.startsWith(collectionPlanMarker) ? places.collections : places.assets;
  if (kept.has(text)) return true;
  if (kept.size >= limit) return false;
  const runs = (shapeRuns.get(text) ?? 0) + 1;
  if (runs < keptPlanAfter) {
    if (shapeRuns.size >= countedShapes) shapeRuns.clear();
    shapeRuns.set(text, runs);
    return false;
  }
  shapeRuns.delete(text);
  kept.add(text);
  return true;
}

const prepares = (text: string) => text.startsWith(marker) || ((text.startsWith(planMarker) || text.startsWith(collectionPlanMarker)) && mayKeepPlan(text));

type Query = (config: unknown, values?: unknown) => unknown;

/**
 * A statement of one shape built and compiled once, its values put in at each call: building
 * and compiling a read by id with Kysely on every request cost more Node time than reading
 * its row. `build` gets a stand-in for each value (text no caller sends: it holds a NUL) and
 * must pass each one whole as a parameter; nothing else in the statement may depend on them.
 */
export function compiledOnce<K extends string, R>(db: QueryExecutorProvider, names: readonly K[], build: (values: Record<K, string>) => RawBuilder<R>): (values: Record<K, unknown>) => CompiledQuery<R> {
  const standIns = Object.fromEntries(names.map((name) => [name, `\u0000${name}`])) as Record<K, string>;
  const compiled = build(standIns).compile(db);
  const slots = compiled.parameters.map((value) => names.find((name) => standIns[name] === value));
  const misplaced = names.filter((name) => !slots.includes(name) || compiled.sql.includes(standIns[name]) || compiled.parameters.some((v) => typeof v === 'string' && v !== standIns[name] && v.includes(standIns[name])));
  if (misplaced.length > 0) throw new Error(`compiledOnce: ${misplaced.join(', ')} must each be a whole parameter of the statement`);
  const valueAt = (values: Record<K, unknown>, i: number) => {
    const slot = slots[i];
    return slot === undefined ? compiled.parameters[i] : values[slot];
  };
  return (values) => ({ ...compiled, parameters: compiled.parameters.map((_, i) => valueAt(values, i)) });
}

/** A compiled statement as a named one, to run elsewhere (after an append, in its round trip); named from its text. */
export function namedStatement(compiled: { readonly sql: string; readonly parameters: readonly unknown[] }): { name: string; text: string; values: readonly unknown[] } {
  return { name: statementName(compiled.sql), text: compiled.sql, values: compiled.parameters };
}

/**
 * A pool for Kysely whose clients send marked statements as named (prepared) ones. Each
 * connection comes from the server the current request reads from (`routedPool`: a
 * standby chosen for a read, docs/consistency.md "Standbys"), else from `pool`.
 */
export function preparingPool(pool: pg.Pool, kind: keyof ReadPools = 'plain') {
  return {
    async connect() {
      const client = await routedPool(kind, pool).connect();
      const query = client.query.bind(client) as Query;
      return Object.assign(Object.create(client) as pg.PoolClient, {
        query: ((config: unknown, values?: unknown) =>
          typeof config === 'string' && prepares(config) ? query({ name: statementName(config), text: config, values }) : query(config, values)) as pg.PoolClient['query'],
        release: (error?: Error | boolean) => client.release(error),
      });
    },
    end: () => pool.end(),
    options: pool.options,
  };
}
