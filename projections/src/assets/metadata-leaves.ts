import { createHash } from 'node:crypto';

/**
 * The rows of asset_metadata_order (migration 0033): each path (through objects only) and
 * scalar value but null of an asset's metadata, a list's scalar elements at the list's
 * path, as `metadata @> {"a": {"b": v}}` and `{"a": {"b": [v]}}` match them. A row holds
 * the leaf's term (`leafTerm`). Paths of at most `leafLimits.depth` keys of at most
 * `leafLimits.chars` characters, strings of at most `leafLimits.chars`, numbers written
 * without an exponent: a filter beyond them reads by windows. `cairn_metadata_terms` in
 * the migration is the same rule in SQL.
 */
export type MetadataLeaf = { readonly path: readonly string[]; readonly value: string | number | boolean };

export const leafLimits = { depth: 4, chars: 64 } as const;

/** Characters as PostgreSQL counts them (code points, not UTF-16 units). */
const characters = (text: string) => {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A value a row can hold: a boolean, a string not too long, or a number JavaScript writes
 * without an exponent (PostgreSQL writes 1e21 out in full, so the two texts would differ).
 */
export function isLeafValue(value: unknown): value is MetadataLeaf['value'] {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !String(value).includes('e');
  return typeof value === 'string' && characters(value) <= leafLimits.chars;
}

/** A path a row can hold. */
export const isLeafPath = (path: readonly string[]) => path.length >= 1 && path.length <= leafLimits.depth && path.every((key) => characters(key) <= leafLimits.chars);

/**
 * Each value of the metadata that is not an object, with its path: objects are walked to
 * `leafLimits.depth` keys, keys longer than `leafLimits.chars` characters are left out, and
 * so is an object at the deepest path.
 */
function eachValue(metadata: unknown, visit: (path: string[], value: unknown) => void): void {
  const walk = (object: Record<string, unknown>, at: string[]) => {
    for (const [key, value] of Object.entries(object)) {
      if (characters(key) > leafLimits.chars) continue;
      const path = [...at, key];
      if (!isObject(value)) visit(path, value);
      else if (path.length < leafLimits.depth) walk(value, path);
    }
  };
  if (isObject(metadata)) walk(metadata, []);
}

export function metadataLeaves(metadata: unknown): MetadataLeaf[] {
  const leaves = new Map<string, MetadataLeaf>();
  const add = (path: string[], value: unknown) => {
    if (isLeafValue(value)) leaves.set(JSON.stringify([path, value]), { path, value });
  };
  eachValue(metadata, (path, value) => {
    if (Array.isArray(value)) for (const element of value) add(path, element);
    else add(path, value);
  });
  return [...leaves.values()];
}

/**
 * A leaf's term: the first 8 bytes of the MD5 of `<length>:<key>...=<type><value>` as a
 * signed integer (as text, pg's bigint). Each key is prefixed by its length, so no key
 * can imitate a path; `s`, `b` or `n` tells the string "1" from the number 1.
 */
export function leafTerm(path: readonly string[], value: MetadataLeaf['value']): string {
  const type = typeof value === 'string' ? 's' : typeof value === 'boolean' ? 'b' : 'n';
  const text = `${path.map((key) => `${characters(key)}:${key}`).join('')}=${type}${String(value)}`;
  return createHash('md5').update(text).digest().readBigInt64BE(0).toString();
}

/** The distinct terms of an asset's metadata. */
export const metadataTerms = (metadata: unknown): string[] => [...new Set(metadataLeaves(metadata).map((leaf) => leafTerm(leaf.path, leaf.value)))];

/** A path's term in asset_metadata_numbers (migration 0036): the first 8 bytes of the MD5 of `<length>:<key>...`, as leafTerm writes the path. */
export function pathTerm(path: readonly string[]): string {
  return createHash('md5').update(path.map((key) => `${characters(key)}:${key}`).join('')).digest().readBigInt64BE(0).toString();
}

/** A number of an asset's metadata at a path through objects only, as a row of asset_metadata_numbers holds it (the number as text, for PostgreSQL's numeric). */
export type MetadataNumber = { readonly path: string; readonly value: string };

/**
 * The rows of asset_metadata_numbers: each number of the metadata at a path of at most
 * `leafLimits.depth` keys of at most `leafLimits.chars` characters, reached through objects
 * only (`metadata #> path` reaches no number in a list by its list's path).
 * `cairn_metadata_numbers` in the migration is the same rule in SQL.
 */
export function metadataNumbers(metadata: unknown): MetadataNumber[] {
  const numbers = new Map<string, MetadataNumber>();
  eachValue(metadata, (path, value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return;
    const row = { path: pathTerm(path), value: String(value) };
    numbers.set(`${row.path} ${row.value}`, row);
  });
  return [...numbers.values()];
}
