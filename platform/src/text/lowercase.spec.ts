import { describe, expect, it } from 'vitest';
import { lowercaseAsPostgres } from './lowercase.ts';

describe('lowercaseAsPostgres', () => {
  it("lowercases as PostgreSQL's lower() does, code point by code point", () => {
    expect(lowercaseAsPostgres('Coastal SEDIMENT')).toBe('coastal sediment');
    // A word-final capital sigma: σ, not JavaScript's ς.
    expect(lowercaseAsPostgres('ΟΔΟΣ ΑΘΗΝΑΣ')).toBe('οδοσ αθηνασ');
    // İ is one code point, i.
    expect(lowercaseAsPostgres('İstanbul')).toBe('istanbul');
    expect([...lowercaseAsPostgres('İİİ')]).toHaveLength(3);
    expect(lowercaseAsPostgres('ÄRGER ÉTÉ 雪 😀')).toBe('ärger été 雪 😀');
    expect(lowercaseAsPostgres('')).toBe('');
  });
});
