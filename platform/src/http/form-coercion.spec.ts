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
    const body = coerceFormBody(schema, { title: 'T', locked: 'maybe', limit: 'many', metadata: '{broken' });
    expect(schema.safeParse(body).success).toBe(false);
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
