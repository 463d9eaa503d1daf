import { describe, expect, it } from 'vitest';
import { planSteps, statementFor } from './row-op-plan.ts';
import { custom, insert, remove, update, upsert, type Copy } from './row-ops.ts';

const agency = (id: string) => insert('funding_agencies', { id, name: id, abbreviation: '', url: '', catalog_id: '', created_at: 'x', updated_at: 'x' }, { key: ['id'] });
const rename = (id: string) => update('funding_agencies', { id }, { name: `${id}!` });
const shape = (steps: ReturnType<typeof planSteps>) => steps.map((s) => (s.kind === 'custom' ? 'custom' : s.ops.map((o) => o.kind).join('+')));

describe('planSteps', () => {
  it('gathers like operations on distinct rows into one statement', () => {
    expect(shape(planSteps([agency('a'), agency('b'), agency('c')]))).toEqual(['insert+insert+insert']);
  });

  it('starts a new statement when a row comes twice, or the same table was touched in between', () => {
    expect(shape(planSteps([agency('a'), agency('a')]))).toEqual(['insert', 'insert']);
    expect(shape(planSteps([agency('a'), rename('a'), agency('a')]))).toEqual(['insert', 'update', 'insert']);
  });

  it('lets operations on other tables pass, but never a custom step', () => {
    const star = insert('project_stars', { user_id: 'u', project_id: 'p', created_at: 'x' }, { key: ['user_id', 'project_id'] });
    expect(shape(planSteps([agency('a'), star, agency('b')]))).toEqual(['insert+insert', 'insert']);
    expect(shape(planSteps([agency('a'), custom(async () => undefined), agency('b')]))).toEqual(['insert', 'custom', 'insert']);
  });

  it('lets a delete pass what provably touches other rows: replacing each asset’s entries gathers over a batch', () => {
    const entry = (asset: string, subject: string) => insert('asset_permissions', { asset_id: asset, subject_type: 'user', subject_key: subject, flags: 1 }, { key: ['asset_id', 'subject_type', 'subject_key'] });
    const grants = (asset: string) => update('assets', { id: asset }, { entry_grants: {} });
    const replace = (asset: string) => [remove('asset_permissions', { asset_id: asset }), entry(asset, 'x'), entry(asset, 'y'), grants(asset)];
    const steps = planSteps(['a', 'b', 'c'].flatMap(replace));
    expect(shape(steps)).toEqual(['delete+delete+delete', 'insert+insert+insert+insert+insert+insert', 'update+update+update']);
  });

  it('lets an insert pass what touches other rows by key: creating assets and replacing their entries gathers over a batch', () => {
    const create = (id: string) => insert('assets', { id, title: id } as never, { key: ['id'] });
    const entry = (asset: string) => insert('asset_permissions', { asset_id: asset, subject_type: 'user', subject_key: 'x', flags: 1 }, { key: ['asset_id', 'subject_type', 'subject_key'] });
    const grants = (asset: string) => update('assets', { id: asset }, { entry_grants: {} });
    const ops = ['a', 'b', 'c'].flatMap((id) => [create(id), remove('asset_permissions', { asset_id: id }), entry(id), grants(id)]);
    expect(shape(planSteps(ops))).toEqual(['insert+insert+insert', 'delete+delete+delete', 'insert+insert+insert', 'update+update+update']);
  });

  it('keeps an insert after what could free a unique value or touch its row', () => {
    const user = (id: string, email: string) => insert('users', { id, email } as never, { key: ['id'] });
    const reEmail = (id: string, email: string) => update('users', { id }, { email });
    // An update that frees an e-mail another insert then takes: the order decides.
    expect(shape(planSteps([user('a', 'x'), reEmail('a', 'y'), user('b', 'x')]))).toEqual(['insert', 'update', 'insert']);
    // A delete on a table with a unique column besides its key.
    expect(shape(planSteps([user('a', 'x'), remove('users', { id: 'a' }), user('b', 'x')]))).toEqual(['insert', 'delete', 'insert']);
    // The same key: never.
    expect(shape(planSteps([agency('a'), rename('a'), agency('a')]))).toEqual(['insert', 'update', 'insert']);
    // An update that sets the key.
    expect(shape(planSteps([agency('a'), update('funding_agencies', { id: 'b' }, { id: 'c' }), agency('c')]))).toEqual(['insert', 'update', 'insert']);
    // Without unique columns besides the key, other rows by key: it passes.
    expect(shape(planSteps([agency('a'), rename('a'), remove('funding_agencies', { id: 'z' }), agency('b')]))).toEqual(['insert+insert', 'update', 'delete']);
  });

  it('keeps a delete after what it may touch', () => {
    const entry = (asset: string, subject: string) => insert('asset_permissions', { asset_id: asset, subject_type: 'user', subject_key: subject, flags: 1 }, { key: ['asset_id', 'subject_type', 'subject_key'] });
    const clear = (asset: string) => remove('asset_permissions', { asset_id: asset });
    // The row inserted in between matches the later delete.
    expect(shape(planSteps([clear('a'), entry('b', 'x'), clear('b')]))).toEqual(['delete', 'insert', 'delete']);
    // A delete on a column the insert's key does not hold: unknown, so it stays.
    expect(shape(planSteps([clear('a'), entry('b', 'x'), remove('asset_permissions', { subject_key: 'z' })]))).toEqual(['delete', 'insert', 'delete']);
    // An update that sets the delete's column could move rows into it.
    const move = update('asset_permissions', { asset_id: 'c', subject_type: 'user', subject_key: 'x' }, { asset_id: 'b' });
    expect(shape(planSteps([clear('a'), move, clear('b')]))).toEqual(['delete', 'update', 'delete']);
    // An update of other rows, that leaves the delete's column alone, may be passed.
    const flags = update('asset_permissions', { asset_id: 'c', subject_type: 'user', subject_key: 'x' }, { flags: 3 });
    expect(shape(planSteps([clear('a'), flags, clear('b')]))).toEqual(['delete+delete', 'update']);
    expect(shape(planSteps([clear('a'), update('asset_permissions', { asset_id: 'b', subject_type: 'user', subject_key: 'x' }, { flags: 3 }), clear('b')]))).toEqual(['delete', 'update', 'delete']);
  });

  it('gathers by shape: other columns, keys or conflict actions start a statement of their own, whatever order the columns come in', () => {
    const renameAndLink = (id: string) => update('funding_agencies', { id }, { name: id, url: id });
    const linkAndRename = (id: string) => update('funding_agencies', { id }, { url: id, name: id });
    expect(shape(planSteps([rename('a'), renameAndLink('b'), linkAndRename('c'), rename('d')]))).toEqual(['update', 'update+update', 'update']);
    const star = (user: string, update: readonly ('created_at')[] | null) =>
      update ? upsert('project_stars', { user_id: user, project_id: 'p', created_at: 'x' }, { key: ['user_id', 'project_id'], update }) : insert('project_stars', { user_id: user, project_id: 'p', created_at: 'x' }, { key: ['user_id', 'project_id'] });
    // Inserts of other rows by the same key may pass each other: a and d gather, b and c apart from them.
    const stars = planSteps([star('a', null), star('b', ['created_at']), star('c', ['created_at']), star('d', null)]);
    expect(stars.map((s) => (s.kind === 'rows' ? s.ops.map((o) => (o.kind === 'insert' ? `${String(o.row['user_id'])}${o.update ? '!' : ''}` : '')).join() : ''))).toEqual(['a,d', 'b!,c!']);
    // A lone string key that looks like JSON stays apart from one that does not.
    expect(shape(planSteps([agency('["a"]'), agency('a')]))).toEqual(['insert+insert']);
    expect(shape(planSteps([agency('["a"]'), agency('["a"]')]))).toEqual(['insert', 'insert']);
  });

  it('sends the rows as one JSON parameter through the table type', () => {
    const { text, rows } = statementFor([remove('funding_agencies', { id: 'a' }), remove('funding_agencies', { id: 'b' })] as never);
    expect(text).toBe('delete from "funding_agencies" as t using json_populate_recordset(null::"funding_agencies", $1::json) as v where t."id" = v."id"');
    expect(rows).toEqual([{ id: 'a' }, { id: 'b' }]);
  });

  it('gives a keyed insert a plain form without its ON CONFLICT clause, and a delete none', () => {
    const row = { id: 'a', name: 'A', abbreviation: '', url: '', catalog_id: '', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
    const created = statementFor([insert('funding_agencies', row, { key: ['id'] })] as never);
    expect(created.text).toMatch(/ on conflict \("id"\) do nothing$/);
    expect(created.plain).toBe(created.text.replace(' on conflict ("id") do nothing', ''));
    const upserted = statementFor([upsert('funding_agencies', row, { key: ['id'], update: ['name'] })] as never);
    expect(upserted.plain).toBe(upserted.text.replace(' on conflict ("id") do update set "name" = excluded."name"', ''));
    expect(statementFor([remove('funding_agencies', { id: 'a' })] as never).plain).toBeUndefined();
  });

  it('keeps a copy after the writes of the table it reads, and the writes of its own table after it, gathering the rest', () => {
    const text: Copy = { from: 'assets', match: { id: 'asset_id' }, columns: { search_text: 'search_text' } };
    const created = (id: string) => insert('assets', { id } as never, { key: ['id'] });
    const retitled = (id: string) => update('assets', { id }, { title: id });
    const starred = (user: string, asset: string) => insert('asset_stars', { user_id: user, asset_id: asset, asset_created_at: 'x', starred_at: 'x' }, { key: ['user_id', 'asset_id'], copy: text });
    const restamped = (asset: string) => update('asset_stars', { asset_id: asset }, {}, { copy: text });
    // A star of an existing asset, then an asset made and starred: the second star may not join the first, which runs before the asset exists.
    expect(shape(planSteps([starred('u', 'x'), created('a'), starred('u', 'a')]))).toEqual(['insert', 'insert', 'insert']);
    // Assets made, then starred: one statement each.
    expect(shape(planSteps([created('a'), starred('u', 'a'), created('b'), starred('u', 'b')]))).toEqual(['insert+insert', 'insert+insert']);
    // Two assets retitled, each then its stars restamped: the second retitle may pass the first restamp (another asset's row), so two statements.
    expect(shape(planSteps([retitled('a'), restamped('a'), retitled('b'), restamped('b')]))).toEqual(['update+update', 'update+update']);
    // One asset retitled twice: the second retitle may not move before the first restamp, which would copy the later title.
    expect(shape(planSteps([retitled('a'), restamped('a'), retitled('a'), restamped('a')]))).toEqual(['update', 'update', 'update', 'update']);
    // A write of the stars may not pass a copy into them either.
    const unstarred = remove('asset_stars', { user_id: 'u', asset_id: 'a' });
    expect(shape(planSteps([starred('u', 'a'), created('c'), unstarred]))).toEqual(['insert', 'insert', 'delete']);
    // The statements: the other row joined on the match, its columns inserted or set.
    const insertText = statementFor([starred('u', 'a')] as never).text;
    expect(insertText).toContain('select v."asset_created_at", v."asset_id", v."starred_at", v."user_id", c."search_text" from json_populate_recordset(null::"asset_stars", $1::json) as v left join "assets" as c on c."id" = v."asset_id"');
    expect(statementFor([restamped('a')] as never).text).toBe(
      'update "asset_stars" as t set "search_text" = c."search_text" from json_populate_recordset(null::"asset_stars", $1::json) as v left join "assets" as c on c."id" = v."asset_id" where t."asset_id" = v."asset_id"',
    );
  });

  it('refuses a copy from its own table, or into a column the operation also gives', () => {
    const own: Copy = { from: 'asset_stars', match: { asset_id: 'asset_id' }, columns: { search_text: 'search_text' } };
    expect(() => insert('asset_stars', { user_id: 'u', asset_id: 'a', asset_created_at: 'x', starred_at: 'x' }, { key: ['user_id', 'asset_id'], copy: own })).toThrow(/copies from its own table/);
    const text: Copy = { from: 'assets', match: { id: 'asset_id' }, columns: { search_text: 'search_text' } };
    expect(() => update('asset_stars', { asset_id: 'a' }, { search_text: 'x' }, { copy: text })).toThrow(/both gives and copies search_text/);
  });

  it('refuses a match that would widen to every row', () => {
    // The types refuse it too; the guard holds for values that are undefined at run time.
    // @ts-expect-error an undefined match value
    expect(() => remove('project_members', { project_id: 'p', user_id: undefined })).toThrow(/undefined user_id/);
  });
});
