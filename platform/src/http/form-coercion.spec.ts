import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coerceFormBody } from './form-coercion.ts';

describe('form body coercion', () => {
  const schema = z.object({
    title: z.string(),
    locked: z.boolean().optional(),
    limit: z.number().int().default(5),
    tags: z.array(z.string()).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    note: z.string().nullish().transform((v) => v ?? ''),
  });

  it('turns form strings into the types of the schema', () => {
    const body = coerceFormBody(schema, { title: 'T', locked: 'yes', limit: '42', tags: 'one', metadata: '{"a":1}', extra: 'kept' });
    expect(schema.parse(body)).toEqual({ title: 'T', locked: true, limit: 42, tags: ['one'], metadata: { a: 1 }, note: '' });
  });

  it('keeps repeated fields as lists and reads booleans in every usual spelling', () => {
    expect(coerceFormBody(schema, { tags: ['a', 'b'] })['tags']).toEqual(['a', 'b']);
    for (const [raw, value] of [['true', true], ['1', true], ['on', true], ['false', false], ['0', false], ['no', false]] as const) {
      expect(coerceFormBody(schema, { locked: raw })['locked']).toBe(value);
    }
  });

  it('leaves what it cannot read for validation to refuse', () => {
    const body = coerceFormBody(schema, { title: 'T', locked: 'maybe', limit: 'many' });
    expect(schema.safeParse(body).success).toBe(false);
  });
});

describe('objects and lists of objects in a form (DECISIONS.md 8)', () => {
  const entry = z.object({ flags: z.int(), subject_type: z.string() });
  const schema = z.object({
    permissions: z.array(entry).max(5),
    asset_ids: z.array(z.uuid()).optional(),
    tags: z.array(z.string()).optional(),
    where: z.unknown(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  });
  const a = '3f1c2a4e-1b2c-4d5e-8f90-0123456789ab';
  const b = '4f1c2a4e-1b2c-4d5e-8f90-0123456789ab';
  const entries = [{ flags: 1, subject_type: 'public' }, { flags: 3, subject_type: 'user' }];

  it('reads a list of objects as one JSON list, or as repeated fields of JSON objects', () => {
    expect(coerceFormBody(schema, { permissions: JSON.stringify(entries) })['permissions']).toEqual(entries);
    expect(coerceFormBody(schema, { permissions: entries.map((e) => JSON.stringify(e)) })['permissions']).toEqual(entries);
    expect(coerceFormBody(schema, { permissions: JSON.stringify(entries[0]) })['permissions']).toEqual([entries[0]]);
    expect(coerceFormBody(schema, { permissions: '' })['permissions']).toEqual([]);
    expect(coerceFormBody(schema, { permissions: '[]' })['permissions']).toEqual([]);
  });

  it('reads a list of ids as a JSON list or as repeated fields', () => {
    expect(coerceFormBody(schema, { asset_ids: JSON.stringify([a, b]) })['asset_ids']).toEqual([a, b]);
    expect(coerceFormBody(schema, { asset_ids: [a, b] })['asset_ids']).toEqual([a, b]);
    expect(coerceFormBody(schema, { asset_ids: a })['asset_ids']).toEqual([a]);
  });

  it('keeps a text that only looks like a list as one text', () => {
    expect(coerceFormBody(schema, { tags: '[draft]' })['tags']).toEqual(['[draft]']);
    expect(coerceFormBody(schema, { tags: '["a","b"]' })['tags']).toEqual(['a', 'b']);
  });

  it('reads `where` (any JSON) from JSON text', () => {
    const where = { field: 'title', op: 'eq', value: 'x' };
    expect(coerceFormBody(schema, { where: JSON.stringify(where) })['where']).toEqual(where);
  });

  it('refuses JSON text that does not parse, naming every such field', () => {
    const refused = { status: 400, code: 'validation_error' };
    expect(() => coerceFormBody(schema, { permissions: '[{"flags":1', where: '{nope', metadata: '{broken', asset_ids: '["x"', tags: 'fine' })).toThrow(
      expect.objectContaining({ ...refused, errors: { permissions: [expect.stringMatching(/JSON/)], where: [expect.stringMatching(/JSON/)], metadata: [expect.stringMatching(/JSON/)], asset_ids: [expect.stringMatching(/JSON/)] } }),
    );
    expect(() => coerceFormBody(schema, { permissions: ['{"flags":1}', 'nope'] })).toThrow(expect.objectContaining({ ...refused, errors: { permissions: [expect.stringMatching(/JSON/)] } }));
  });
});

describe('form field names that Object.prototype has', () => {
  const schema = z.object({ name: z.string(), tags: z.array(z.string()).optional() });

  it('takes them as unknown fields, never as members of the schema', () => {
    for (const key of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__proto__']) {
      const body = Object.assign(Object.create(null) as Record<string, unknown>, { name: 'n', [key]: ['x', 'y'] });
      const coerced = coerceFormBody(schema, body);
      expect(Object.getPrototypeOf(coerced)).toBeNull();
      expect(coerced[key]).toEqual(['x', 'y']);
      expect(schema.parse(coerced)).toEqual({ name: 'n' });
    }
  });
});

describe('JSON in a form field', () => {
  const schema = z.object({ metadata: z.record(z.string(), z.unknown()).optional() });

  it('is refused, naming the field, when it nests deeper than the limit', () => {
    const deep = `${'{"a":'.repeat(65)}1${'}'.repeat(65)}`;
    expect(() => coerceFormBody(schema, { metadata: deep })).toThrow(expect.objectContaining({ status: 400, code: 'validation_error', errors: { metadata: [expect.stringMatching(/64 levels/)] } }));
    const atLimit = `${'{"a":'.repeat(64)}1${'}'.repeat(64)}`;
    expect(coerceFormBody(schema, { metadata: atLimit })['metadata']).toBeTypeOf('object');
  });
});
