import { sql, type RawBuilder } from 'kysely';
import type { AssetConditions } from './asset-page.ts';
import { metadataExists, metadataHolds, likeEscaped, nestedObject } from './asset-filters.ts';
import { queryDriver, queryTags, rangePrimary } from './driver-choice.ts';
import { rangeComparators } from './order-drivers.ts';
import { AssetQueryError, jsonValue, list, metadataKeys, queryLimits, spend, text, uuid, validTime, type QueryBudget } from './query-values.ts';

export { AssetQueryError, queryLimits } from './query-values.ts';

/**
 * The structured asset query (DECISIONS.md 4, AssetQueryRequest; docs/asset-query.md).
 * A condition compiles to SQL on the asset row `a`. Conditions an index can serve run in
 * the page's scan; those none can (ranges and prefixes inside metadata) become the
 * residual, checked row by row on what the scan returns, under the scan cap.
 */
const operators = ['eq', 'ne', 'in', 'exists', 'gt', 'gte', 'lt', 'lte', 'prefix', 'contains'] as const;
type Operator = (typeof operators)[number];

type Compiled = { readonly sql: RawBuilder<unknown>; readonly residual: boolean; readonly node?: unknown };

type FieldKind = 'text' | 'uuid' | 'tags' | 'collections' | 'time' | 'boolean';
const fields: Readonly<Record<string, { column: string; kind: FieldKind }>> = {
  title: { column: 'a.title', kind: 'text' },
  alias: { column: 'a.alias', kind: 'text' },
  record_type: { column: 'a.record_type', kind: 'text' },
  owner_type: { column: 'a.owner_type', kind: 'text' },
  owner_id: { column: 'a.owner_id', kind: 'uuid' },
  tags: { column: 'a.tags', kind: 'tags' },
  collection_id: { column: 'a.collection_ids', kind: 'collections' },
  created_at: { column: 'a.created_at', kind: 'time' },
  updated_at: { column: 'a.updated_at', kind: 'time' },
  is_locked: { column: 'a.is_locked', kind: 'boolean' },
};

/** The SQL type of a column's values, for a list sent as one array parameter. */
const elementTypes: Readonly<Record<Exclude<FieldKind, 'boolean'>, string>> = { text: 'text', uuid: 'uuid', tags: 'text', collections: 'uuid', time: 'timestamptz' };

const allowedOps: Readonly<Record<FieldKind | 'metadata', readonly Operator[]>> = {
  text: ['eq', 'ne', 'in', 'prefix', 'exists'],
  uuid: ['eq', 'ne', 'in', 'exists'],
  tags: ['eq', 'ne', 'in', 'contains', 'exists'],
  collections: ['eq', 'ne', 'in', 'contains', 'exists'],
  time: ['eq', 'ne', 'in', 'gt', 'gte', 'lt', 'lte', 'exists'],
  boolean: ['eq', 'ne', 'exists'],
  metadata: ['eq', 'ne', 'in', 'exists', 'gt', 'gte', 'lt', 'lte', 'prefix', 'contains'],
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const own = (o: Record<string, unknown>, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/**
 * A leaf on a column of the asset row: always served by the scan (indexes or a cheap
 * filter on it). A list is one array parameter, however long: a parameter per value
 * overflowed PostgreSQL's 65,535 per statement (issue 23).
 */
/**
 * Who asks: a collection they may not see is, in a condition, an id no asset holds (as a
 * random id is), so that the query tells nothing of what hidden collections hold
 * (docs/collections.md "Hidden collection ids"); a system administrator sees every one.
 */
export type QueryScope = { readonly seesEveryCollection: boolean };

const noCollection = '00000000-0000-0000-0000-000000000000';
const seenCollection = (id: RawBuilder<unknown>) => sql`coalesce((select k.id from collections k where k.id = ${id} and k.readers && me.p), ${noCollection}::uuid)`;

function columnLeaf(column: string, kind: FieldKind, op: Operator, value: unknown, path: string, budget: QueryBudget, scope: QueryScope): RawBuilder<unknown> {
  const c = sql.raw(column);
  const scalar = (v: unknown, p: string): string | boolean => {
    switch (kind) {
      case 'text':
      case 'tags':
        return text(v, p);
      case 'uuid':
      case 'collections':
        return uuid(v, p);
      case 'time':
        return validTime(v, p);
      case 'boolean':
        if (typeof v !== 'boolean') throw new AssetQueryError(p, 'Must be true or false.');
        return v;
    }
  };
  const vp = `${path}.value`;
  const type = kind === 'boolean' ? 'boolean' : elementTypes[kind];
  const hides = kind === 'collections' && !scope.seesEveryCollection;
  const one = () => {
    spend(budget, 1, vp);
    const v = sql`${scalar(value, vp)}::${sql.raw(type)}`;
    return hides ? seenCollection(v) : v;
  };
  const many = () => {
    const values = list(value, vp, budget).map((v, i) => scalar(v, `${vp}[${i}]`));
    const set = sql`${values}::${sql.raw(type)}[]`;
    return hides ? sql`array(select ${seenCollection(sql`u.v`)} from unnest(${set}) with ordinality u(v, n) order by u.n)` : set;
  };
  if (op === 'exists') {
    if (value !== undefined) throw new AssetQueryError(vp, '`exists` takes no value.');
    return kind === 'tags' || kind === 'collections' ? sql`cardinality(${c}) > 0` : sql`true`;
  }
  if (kind === 'tags' || kind === 'collections') {
    switch (op) {
      case 'contains':
        return sql`${c} @> array[${one()}]`;
      case 'eq': {
        // A single value: the asset has it; a list: exactly these (as a set).
        if (!Array.isArray(value)) return sql`${c} @> array[${one()}]`;
        const set = many();
        return sql`(${c} @> ${set} and ${c} <@ ${set})`;
      }
      case 'ne': {
        if (!Array.isArray(value)) return sql`not (${c} @> array[${one()}])`;
        const set = many();
        return sql`not (${c} @> ${set} and ${c} <@ ${set})`;
      }
      case 'in':
        return sql`${c} && ${many()}`;
      default:
        break;
    }
  }
  switch (op) {
    case 'eq':
      return sql`${c} = ${one()}`;
    case 'ne':
      return sql`${c} <> ${one()}`;
    case 'in':
      return sql`${c} = any(${many()})`;
    case 'gt':
      return sql`${c} > ${one()}`;
    case 'gte':
      return sql`${c} >= ${one()}`;
    case 'lt':
      return sql`${c} < ${one()}`;
    case 'lte':
      return sql`${c} <= ${one()}`;
    case 'prefix':
      spend(budget, 1, vp);
      return sql`lower(${c}) like ${`${likeEscaped(text(value, vp))}%`}`;
    default:
      throw new AssetQueryError(`${path}.op`, `The operator ${op} does not apply here.`);
  }
}

/** A leaf inside metadata. Equality, presence and membership are GIN containments; ranges and prefixes are residual. */
function metadataLeaf(keys: string[], op: Operator, value: unknown, path: string, budget: QueryBudget): Compiled {
  const vp = `${path}.value`;
  const at = sql`(a.metadata #> ${keys}::text[])`;
  if (op !== 'exists' && op !== 'in') spend(budget, 1, vp);
  switch (op) {
    case 'exists':
      if (value !== undefined) throw new AssetQueryError(vp, '`exists` takes no value.');
      return { sql: metadataExists(keys), residual: false };
    case 'eq': {
      const v = jsonValue(value, vp);
      // Containment finds candidates through the index; equality makes objects and lists exact.
      return { sql: sql`(a.metadata @> ${JSON.stringify(nestedObject(keys, v))}::jsonb and ${at} = ${JSON.stringify(v)}::jsonb)`, residual: false };
    }
    case 'ne':
      return { sql: sql`${at} is distinct from ${JSON.stringify(jsonValue(value, vp))}::jsonb`, residual: false };
    case 'in': {
      // One array parameter; the GIN index serves `@> any(...)` with one bitmap scan per value.
      const documents = list(value, vp, budget).map((v, i) => JSON.stringify(nestedObject(keys, jsonValue(v, `${vp}[${i}]`))));
      return { sql: sql`a.metadata @> any(${documents}::jsonb[])`, residual: false };
    }
    case 'contains':
      return { sql: metadataHolds(keys, [jsonValue(value, vp)]), residual: false };
    case 'prefix':
      return { sql: sql`(jsonb_typeof(${at}) = 'string' and lower(${at} #>> '{}') like ${`${likeEscaped(text(value, vp))}%`})`, residual: true };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const cmp = sql.raw(rangeComparators[op]);
      if (typeof value === 'number' && Number.isFinite(value)) {
        return { sql: sql`(case when jsonb_typeof(${at}) = 'number' then (${at})::numeric ${cmp} ${value}::numeric else false end)`, residual: true };
      }
      const time = validTime(value, vp);
      return { sql: sql`(case when jsonb_typeof(${at}) = 'string' then cairn_try_timestamptz(${at} #>> '{}') ${cmp} ${time}::timestamptz else false end)`, residual: true };
    }
  }
}

/**
 * `positive`: the node is not under a `not`, so a leaf that is null (a missing key, a null
 * column) may stay null: and/or only move null between false and true, and the page keeps
 * rows whose condition is true, so null and false end alike. There a leaf stays bare, which
 * lets PostgreSQL match it to its index (`tags @> ...` to assets_tags); under a `not` it
 * becomes `(...) is true`, because `not null` is null where `not false` is true.
 */
const twoValued = (leaf: RawBuilder<unknown>, positive: boolean) => (positive ? sql`(${leaf})` : sql`(${leaf}) is true`);

function compileNode(node: unknown, path: string, depth: number, budget: QueryBudget, scope: QueryScope, positive: boolean): Compiled {
  if (depth > queryLimits.depth) throw new AssetQueryError(path, `Conditions nest at most ${queryLimits.depth} levels deep.`);
  budget.conditions += 1;
  if (budget.conditions > queryLimits.conditions) throw new AssetQueryError(path, `A query holds at most ${queryLimits.conditions} conditions.`);
  if (!isObject(node)) throw new AssetQueryError(path, 'Must be an object: {"and": [...]}, {"or": [...]}, {"not": ...} or {"field", "op", "value"}.');
  const keys = Object.keys(node);
  if (own(node, 'and') || own(node, 'or')) {
    const kind = own(node, 'and') ? 'and' : 'or';
    if (keys.length !== 1) throw new AssetQueryError(path, `"${kind}" stands alone in its object.`);
    const children = node[kind];
    if (!Array.isArray(children) || children.length === 0) throw new AssetQueryError(`${path}.${kind}`, 'Must be a non-empty list of conditions.');
    const compiled = children.map((child, i) => compileNode(child, `${path}.${kind}[${i}]`, depth + 1, budget, scope, positive));
    return { sql: sql`(${sql.join(compiled.map((c) => c.sql), kind === 'and' ? sql` and ` : sql` or `)})`, residual: compiled.some((c) => c.residual) };
  }
  if (own(node, 'not')) {
    if (keys.length !== 1) throw new AssetQueryError(path, '"not" stands alone in its object.');
    const inner = compileNode(node['not'], `${path}.not`, depth + 1, budget, scope, false);
    return { sql: sql`not ${inner.sql}`, residual: inner.residual };
  }
  const unknown = keys.find((k) => k !== 'field' && k !== 'op' && k !== 'value');
  if (unknown !== undefined) throw new AssetQueryError(`${path}.${unknown}`, 'Unknown key: a condition has field, op and value.');
  const field = node['field'];
  if (typeof field !== 'string') throw new AssetQueryError(`${path}.field`, 'Must be a field name.');
  const op = node['op'];
  if (typeof op !== 'string' || !(operators as readonly string[]).includes(op)) throw new AssetQueryError(`${path}.op`, `Must be one of ${operators.join(', ')}.`);
  const operator = op as Operator;
  if (field.startsWith('metadata.')) {
    const compiled = metadataLeaf(metadataKeys(field, `${path}.field`), operator, node['value'], path, budget);
    return { sql: twoValued(compiled.sql, positive), residual: compiled.residual };
  }
  const definition = fields[field];
  if (!definition || !own(fields, field)) throw new AssetQueryError(`${path}.field`, `Unknown field: one of ${Object.keys(fields).join(', ')} or metadata.KEY.`);
  if (!allowedOps[definition.kind].includes(operator)) throw new AssetQueryError(`${path}.op`, `The operator ${operator} does not apply to ${field}: use ${allowedOps[definition.kind].join(', ')}.`);
  return { sql: twoValued(columnLeaf(definition.column, definition.kind, operator, node['value'], path, budget, scope), positive), residual: false };
}

/**
 * The same conditions with a range on a metadata number as their driver (a walk of
 * asset_metadata_numbers), the range then checked in the scan and not after it; whether it
 * serves better than the driver the conditions have is decided with the data (range-driver.ts).
 */
function rangeOption(node: unknown, served: readonly RawBuilder<unknown>[], residual: readonly Compiled[], where: unknown): AssetConditions['range'] {
  if (!isObject(node) || typeof node['field'] !== 'string' || !node['field'].startsWith('metadata.')) return undefined;
  const primary = rangePrimary(metadataKeys(node['field'], 'where'), node['op'], node['value']);
  const range = residual.find((part) => part.node === node);
  if (!primary || !range) return undefined;
  const others = residual.filter((part) => part !== range).map((part) => part.sql);
  return { driver: { primary, probedTags: queryTags(where) }, where: [...served, range.sql], residual: others.length > 0 ? sql`(${sql.join(others, sql` and `)})` : undefined };
}

/** The request body's `where`, compiled; path names start at `where`. */
export function compileAssetQuery(where: unknown, scope: QueryScope): AssetConditions & { readonly postFiltered: boolean } {
  if (where === undefined) return { where: [], postFiltered: false };
  const budget: QueryBudget = { conditions: 0, values: 0 };
  // A top-level `and` is split: its servable parts go to the scan, the rest to the residual.
  if (isObject(where) && own(where, 'and') && Object.keys(where).length === 1 && Array.isArray(where['and']) && where['and'].length > 0) {
    const nodes = where['and'] as unknown[];
    const parts = nodes.map((child, i) => ({ ...compileNode(child, `where.and[${i}]`, 2, budget, scope, true), node: child }));
    const served = parts.filter((p) => !p.residual).map((p) => p.sql);
    const residual = parts.filter((p) => p.residual);
    const range = nodes.map((node) => rangeOption(node, served, residual, where)).find((option) => option !== undefined);
    return {
      where: served,
      residual: residual.length > 0 ? sql`(${sql.join(residual.map((p) => p.sql), sql` and `)})` : undefined,
      postFiltered: residual.length > 0,
      driver: queryDriver(where),
      range,
    };
  }
  const compiled = compileNode(where, 'where', 1, budget, scope, true);
  const driver = queryDriver(where);
  if (!compiled.residual) return { where: [compiled.sql], postFiltered: false, driver };
  return { where: [], residual: compiled.sql, postFiltered: true, driver, range: rangeOption(where, [], [{ ...compiled, node: where }], where) };
}
