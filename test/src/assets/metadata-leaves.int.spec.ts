import { leafTerm, metadataLeaves, metadataNumbers, metadataTerms, pathTerm } from '@cairn/projections';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingPool } from '../support/statement-capture.ts';

/**
 * The terms of asset_metadata_order come from `metadataTerms` for new assets (the
 * projection) and from `cairn_metadata_terms` for the assets a migration found (0033): the
 * two must give the same terms for any metadata, or a metadata filter's walk would miss
 * assets.
 */
describe('metadata leaves, in Node and in SQL', () => {
  let pool: pg.Pool;

  beforeAll(async () => {
    ({ pool } = await capturingPool());
  });
  afterAll(async () => pool?.end());

  const key = fc.oneof(fc.constantFrom('a', 'b', 'site', 'name', 'é', '😀', ''), fc.string({ maxLength: 3 }), fc.string({ minLength: 63, maxLength: 66 }), fc.string({ unit: 'grapheme', minLength: 60, maxLength: 66 }));
  const scalar = fc.oneof(
    fc.constantFrom('x', 'Dome C', '', '1', 'true', '😀'),
    fc.string({ maxLength: 8 }),
    fc.string({ minLength: 62, maxLength: 67 }),
    fc.string({ unit: 'grapheme', minLength: 60, maxLength: 66 }),
    fc.integer({ min: -5, max: 5 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(1e21, 1e-7, 0.000001, 123456789012345680000, -0, 0.1, 1.5),
    fc.boolean(),
    fc.constant(null),
  );
  const value = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(fc.oneof(scalar, tie('value')), { maxLength: 4 }), fc.dictionary(key, tie('value'), { maxKeys: 4 })),
  })).value;
  const metadata = fc.dictionary(key, value, { maxKeys: 6 });

  const canonical = (rows: readonly { path: readonly string[]; value: unknown }[]) => rows.map((r) => JSON.stringify([r.path, r.value])).sort();

  it('gives the same terms for any metadata', async () => {
    await fc.assert(
      fc.asyncProperty(metadata, async (m) => {
        // PostgreSQL keeps the metadata as the projection writes it: the JSON of the Node value.
        const json = JSON.stringify(m);
        const { rows } = await pool.query<{ term: string }>('select t::text as term from cairn_metadata_terms($1::jsonb) t', [json]);
        expect(rows.map((r) => r.term).sort()).toEqual(metadataTerms(JSON.parse(json)).sort());
      }),
      { numRuns: 400 },
    );
  });

  it('gives the same numbers for any metadata (asset_metadata_numbers, migration 0036)', async () => {
    await fc.assert(
      fc.asyncProperty(metadata, async (m) => {
        const json = JSON.stringify(m);
        const inSql = await pool.query<{ row: string }>("select n.path::text || ' ' || n.value::text as row from cairn_metadata_numbers($1::jsonb) n", [json]);
        const numbers = metadataNumbers(JSON.parse(json));
        const inNode = await pool.query<{ row: string }>("select p || ' ' || v::numeric::text as row from unnest($1::text[], $2::text[]) x(p, v)", [numbers.map((n) => n.path), numbers.map((n) => n.value)]);
        expect(inNode.rows.map((r) => r.row).sort()).toEqual(inSql.rows.map((r) => r.row).sort());
      }),
      { numRuns: 400 },
    );
  });

  it('keeps the numbers reached through objects only, at four keys at most', () => {
    const long = 'x'.repeat(65);
    const numbers = metadataNumbers({ a: { b: { c: { d: 1, e: { f: 2 } } } }, list: [1, 2], n: null, s: '3', [long]: 4, big: 1e21, small: 1e-7, t: true });
    expect(numbers.map((n) => [n.path, n.value]).sort()).toEqual(
      [
        [pathTerm(['a', 'b', 'c', 'd']), '1'],
        [pathTerm(['big']), '1e+21'],
        [pathTerm(['small']), '1e-7'],
      ].sort(),
    );
    // A key's length is written before it, so no key imitates a path.
    expect(pathTerm(['a', 'b'])).not.toBe(pathTerm(['a.b']));
  });

  it('tells apart what containment tells apart: the string "1" and the number 1, a.b and "a.b", true and "true"', () => {
    const terms = [leafTerm(['a'], '1'), leafTerm(['a'], 1), leafTerm(['a', 'b'], 'x'), leafTerm(['a.b'], 'x'), leafTerm(['ab'], 'x'), leafTerm(['k'], true), leafTerm(['k'], 'true')];
    expect(new Set(terms).size).toBe(terms.length);
  });

  it('walks objects to four keys, takes a list\'s scalars at its path, and leaves out null, long keys, long strings and numbers with an exponent', () => {
    const long = 'x'.repeat(65);
    const leaves = metadataLeaves({ a: { b: { c: { d: 1, e: { f: 2 } } } }, list: ['x', 2, null, ['y'], { z: 1 }, 'x'], n: null, [long]: 1, s: long, t: true, big: 1e21, small: 1e-7 });
    expect(canonical(leaves)).toEqual(canonical([
      { path: ['a', 'b', 'c', 'd'], value: 1 },
      { path: ['list'], value: 'x' },
      { path: ['list'], value: 2 },
      { path: ['t'], value: true },
    ]));
  });
});
