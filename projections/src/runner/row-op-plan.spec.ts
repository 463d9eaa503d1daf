import { describe, expect, it } from 'vitest';
import { planSteps, statementFor } from './row-op-plan.ts';
import { custom, insert, remove, update } from './row-ops.ts';

const agency = (id: string) => insert('funding_agencies', { id, name: id, abbreviation: '', url: '', catalog_id: '', created_at: 'x', updated_at: 'x' }, { key: ['id'] });
const rename = (id: string) => update('funding_agencies', { id }, { name: `${id}!` });
const shape = (steps: ReturnType<typeof planSteps>) => steps.map((s) => (s.kind === 'custom' ? 'custom' : s.ops.map((o) => o.kind).join('+')));

describe('planSteps', () => {
  it('gathers like operations on distinct rows into one statement', () => {
    expect(shape(planSteps([agency('a'), agency('b'), agency('c')]))).toEqual(['insert+insert+insert']);
  });

  it('starts a new statement when a row comes twice, or the same table was touched in between', () => {
    expect(shape(planSteps([agency('a'), agency('a')]))).toEqual(['insert', 'insert']);
    expect(shape(planSteps([agency('a'), rename('a'), agency('b')]))).toEqual(['insert', 'update', 'insert']);
  });

  it('lets operations on other tables pass, but never a custom step', () => {
    const star = insert('project_stars', { user_id: 'u', project_id: 'p', created_at: 'x' }, { key: ['user_id', 'project_id'] });
    expect(shape(planSteps([agency('a'), star, agency('b')]))).toEqual(['insert+insert', 'insert']);
    expect(shape(planSteps([agency('a'), custom(async () => undefined), agency('b')]))).toEqual(['insert', 'custom', 'insert']);
  });

  it('sends the rows as one JSON parameter through the table type', () => {
    const { text, rows } = statementFor([remove('funding_agencies', { id: 'a' }), remove('funding_agencies', { id: 'b' })] as never);
    expect(text).toBe('delete from "funding_agencies" as t using json_populate_recordset(null::"funding_agencies", $1::json) as v where t."id" = v."id"');
    expect(rows).toEqual([{ id: 'a' }, { id: 'b' }]);
  });

  it('refuses a match that would widen to every row', () => {
    // The types refuse it too; the guard holds for values that are undefined at run time.
    // @ts-expect-error an undefined match value
    expect(() => remove('project_members', { project_id: 'p', user_id: undefined })).toThrow(/undefined user_id/);
  });
});
