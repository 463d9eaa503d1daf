import { describe, expect, it } from 'vitest';
import { tablesToVacuum } from './migrate.ts';

describe('a migration asking for a vacuum', () => {
  it('names the tables on its own comment lines, and nothing else', () => {
    expect(tablesToVacuum('update t set x = 1;\n-- cairn:vacuum-after asset_stars\n')).toEqual(['asset_stars']);
    expect(tablesToVacuum('-- cairn:vacuum-after a, b_2\nselect 1;\n-- cairn:vacuum-after c')).toEqual(['a', 'b_2', 'c']);
    // Not at the start of a line, or not a plain table name: ignored.
    expect(tablesToVacuum("select '-- cairn:vacuum-after x';\n-- cairn:vacuum-after x; drop table y")).toEqual([]);
    expect(tablesToVacuum('select 1;')).toEqual([]);
  });
});
