import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { compileOnlyDb as db } from './compile-only-db.ts';
import { compiledOnce, keepListingPlans, mayKeepPlan } from './prepared-statements.ts';

describe('a statement compiled once', () => {
  it('puts the values in wherever their stand-ins were, and keeps the other parameters', () => {
    const statement = compiledOnce(db, ['id', 'user'], (v) => sql`select ${v.user}::uuid, ${7}::integer from t where id = ${v.id}::uuid and owner = ${v.user}::uuid`);
    const a = statement({ id: 'a1', user: 'u1' });
    const b = statement({ id: null, user: 'u2' });
    expect(a.sql).toBe('select $1::uuid, $2::integer from t where id = $3::uuid and owner = $4::uuid');
    expect(b.sql).toBe(a.sql);
    expect(a.parameters).toEqual(['u1', 7, 'a1', 'u1']);
    expect(b.parameters).toEqual(['u2', 7, null, 'u2']);
  });

  it('refuses a value that is not a whole parameter', () => {
    expect(() => compiledOnce(db, ['id'], (v) => sql`select ${`u:${v.id}`}`)).toThrow(/id must/);
    expect(() => compiledOnce(db, ['id'], (v) => sql`select ${sql.lit(v.id)}`)).toThrow(/id must/);
    expect(() => compiledOnce(db, ['id', 'user'], (v) => sql`select ${v.id}`)).toThrow(/user must/);
  });
});

describe('kept listing plans', () => {
  afterEach(() => keepListingPlans(32));

  it('keeps a shape once it ran three times, while places remain, and then always', () => {
    keepListingPlans(2);
    expect([mayKeepPlan('a'), mayKeepPlan('a'), mayKeepPlan('a'), mayKeepPlan('a')]).toEqual([false, false, true, true]);
    expect([mayKeepPlan('b'), mayKeepPlan('b'), mayKeepPlan('b')]).toEqual([false, false, true]);
    // Both places taken: a third shape runs as before, however often.
    expect(Array.from({ length: 5 }, () => mayKeepPlan('c'))).toEqual([false, false, false, false, false]);
    expect([mayKeepPlan('a'), mayKeepPlan('b')]).toEqual([true, true]);
  });

  it('keeps the collection listings in places of their own, as many again', () => {
    keepListingPlans(1);
    const collections = (name: string) => `/* cairn:kept-plan collections */ ${name}`;
    for (let i = 0; i < 3; i += 1) mayKeepPlan('a');
    expect(Array.from({ length: 3 }, () => mayKeepPlan(collections('x')))).toEqual([false, false, true]);
    // Each family's one place taken: another shape of either waits, and takes none of the other's.
    expect(Array.from({ length: 4 }, () => mayKeepPlan(collections('y')))).toEqual([false, false, false, false]);
    expect(Array.from({ length: 4 }, () => mayKeepPlan('b'))).toEqual([false, false, false, false]);
    expect([mayKeepPlan('a'), mayKeepPlan(collections('x'))]).toEqual([true, true]);
  });

  it('keeps none at 0', () => {
    keepListingPlans(0);
    expect(Array.from({ length: 5 }, () => mayKeepPlan('a'))).toEqual([false, false, false, false, false]);
  });
});
