import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isTransient } from './transient-errors.ts';

const databaseError = (code: string) => Object.assign(new pg.DatabaseError('failed', 0, 'error'), { code });

describe('which projection failures are transient', () => {
  it('retries what the database, not the event, caused', () => {
    for (const code of ['40001', '40P01', '57014', '57P01', '08006', '53300']) expect(isTransient(databaseError(code))).toBe(true);
    expect(isTransient(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('stops on anything else', () => {
    for (const code of ['23505', '22P02', '42703']) expect(isTransient(databaseError(code))).toBe(false);
    expect(isTransient(new TypeError('cannot read properties of undefined'))).toBe(false);
  });
});
