import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryPageWorld, type QueryPageWorld } from './query-page-fixtures.ts';

/**
 * The structured query sends a list as one array parameter (issue 23): a statement's
 * parameters no longer grow with the values (65,535 at most per statement), and the
 * statement text is the same for every list length, so one prepared plan serves them.
 * 3,000 assets written straight into the read model.
 */
describe('structured query parameters', () => {
  let world: QueryPageWorld;

  beforeAll(async () => {
    world = await queryPageWorld(3000, { recordType: "'dataset'", tags: "array['tag' || (i % 10)]", metadata: "jsonb_build_object('n', i)" });
  });
  afterAll(async () => world?.pool.end());

  const pageOf = (where: unknown) => world.pageOf(where);

  it('sends every list as one parameter, whatever its length', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => 10_000 + i);
    const where = (n: number) => ({
      and: [
        { field: 'metadata.n', op: 'in', value: [7, 1500, 2999, ...many(n - 3)] },
        { field: 'title', op: 'in', value: ['Asset 7', 'Asset 1500', 'Asset 2999', ...many(n - 3).map(String)] },
        { field: 'tags', op: 'in', value: ['tag7', 'tag0', 'tag9', ...many(n - 3).map(String)] },
      ],
    });
    const long = await pageOf(where(1000));
    const short = await pageOf(where(3));
    expect(long.page.json).toBe(short.page.json);
    expect(long.page.count).toBe(3);
    expect(long.statement.values.length).toBeLessThan(30);
    expect(long.statement.values.length).toBe(short.statement.values.length);
    expect(long.statement.text).toBe(short.statement.text);
  });
});
