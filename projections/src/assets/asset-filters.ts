import { lowercaseAsPostgres } from '@cairn/platform';
import { sql, type RawBuilder } from 'kysely';
import { accessScopeSql } from './asset-json.ts';

/** `%`, `_` and `\` of user text match themselves in LIKE. */
export const likeEscaped = (text: string) => lowercaseAsPostgres(text).replace(/[\\%_]/g, (c) => `\\${c}`);

/** `a.b.c` → ['a', 'b', 'c']: dots go into nested objects (docs/assets.md). */
export const metadataPath = (key: string) => key.split('.');

/** `{"a": {"b": value}}` for the path a.b. */
export function nestedObject(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

/** A jsonpath naming the path, each key quoted (any character allowed); strict, so that it never looks inside lists, as containment does not. */
export const jsonPathOf = (path: readonly string[]) => `strict $${path.map((k) => `.${JSON.stringify(k)}`).join('')}`;

/** The key at this path exists: the GIN index on metadata serves both forms. */
export function metadataExists(path: readonly string[]): RawBuilder<unknown> {
  return path.length === 1 ? sql`a.metadata ? ${path[0]}` : sql`a.metadata @? ${jsonPathOf(path)}::jsonpath`;
}

/** The value at the path equals one of the values, or is a list holding one: containments the GIN index serves. */
export function metadataHolds(path: readonly string[], values: readonly unknown[]): RawBuilder<unknown> {
  const documents = values.flatMap((v) => [nestedObject(path, v), nestedObject(path, [v])]);
  return sql`(${sql.join(
    documents.map((d) => sql`a.metadata @> ${JSON.stringify(d)}::jsonb`),
    sql` or `,
  )})`;
}

/**
 * The typed readings of a value written in a query string: `2020` is the number and the
 * text. Only JSON's own number grammar is a number (`07` is text alone), and only a finite
 * one (`1e400` would become `null`).
 */
export function valueReadings(text: string): unknown[] {
  const readings: unknown[] = [text];
  if (/^(true|false|null)$/.test(text)) readings.push(JSON.parse(text));
  else if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text) && Number.isFinite(Number(text))) readings.push(Number(text));
  return readings;
}

export type AssetListFilter = {
  readonly accessScope?: string | undefined;
  readonly collectionId?: string | undefined;
  readonly locked?: boolean | undefined;
  readonly metadata: readonly string[];
  readonly ownerId?: string | undefined;
  readonly ownerType?: string | undefined;
  readonly q?: string | undefined;
  readonly recordTypes: readonly string[];
  readonly tags: readonly string[];
  readonly titles: readonly string[];
  readonly titlePrefix?: string | undefined;
};

/** Where the principals of the home scope are: the caller, its organizations, everyone. */
const homePrincipals = sql`array(select x from unnest(me.p) x where x like 'u:%' or x like 'o:%' or x like 'oa:%' or x = '*')`;

/** The listing's parameters (interface 4.3.1) as conditions on `a`, each served by an index of migration 0011. */
export function listConditions(filter: AssetListFilter, isSystemAdmin: boolean): RawBuilder<unknown>[] {
  const where: RawBuilder<unknown>[] = [];
  // A deleted collection holds nothing (docs/collections.md), though assets keep its id; nor
  // does one the caller may not see, so that its id answers like a random one.
  if (filter.collectionId) {
    where.push(sql`a.collection_ids @> array[${filter.collectionId}::uuid]
      and exists (select 1 from collections k where k.id = ${filter.collectionId}::uuid${isSystemAdmin ? sql`` : sql` and k.readers && me.p`})`);
  }
  if (filter.locked !== undefined) where.push(sql`a.is_locked = ${filter.locked}`);
  for (const entry of filter.metadata) {
    const colon = entry.indexOf(':');
    if (colon < 0) where.push(metadataExists(metadataPath(entry)));
    else where.push(metadataHolds(metadataPath(entry.slice(0, colon)), valueReadings(entry.slice(colon + 1))));
  }
  if (filter.ownerId) where.push(sql`a.owner_id = ${filter.ownerId}::uuid`);
  if (filter.ownerType) where.push(sql`a.owner_type = ${filter.ownerType}`);
  if (filter.q) {
    const pattern = `%${likeEscaped(filter.q)}%`;
    where.push(sql`(lower(a.title) like ${pattern} or lower(a.alias) like ${pattern})`);
  }
  // One value compares with `=`, so that `assets_record_type` gives the rows in the listing's order.
  if (filter.recordTypes.length === 1) where.push(sql`a.record_type = ${filter.recordTypes[0]}`);
  else if (filter.recordTypes.length > 1) where.push(sql`a.record_type = any(${[...filter.recordTypes]}::text[])`);
  if (filter.tags.length > 0) where.push(sql`a.tags @> ${[...filter.tags]}::text[]`);
  if (filter.titles.length > 0) where.push(sql`a.title = any(${[...filter.titles]}::text[])`);
  if (filter.titlePrefix) where.push(sql`lower(a.title) like ${`${likeEscaped(filter.titlePrefix)}%`}`);
  if (filter.accessScope === 'home') where.push(sql`a.readers && ${homePrincipals}`);
  else if (filter.accessScope) where.push(sql`${accessScopeSql(sql`${isSystemAdmin}::boolean`)} = ${filter.accessScope}`);
  return where;
}
