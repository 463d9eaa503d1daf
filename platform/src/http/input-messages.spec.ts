import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseOrThrow } from './validation.ts';

const errorsOf = (schema: z.ZodType, input: unknown): Record<string, string[]> => {
  try {
    parseOrThrow(schema, input, 'body');
  } catch (error) {
    return { ...(error as { errors: Record<string, string[]> }).errors };
  }
  throw new Error('the input was accepted');
};

describe('field error wording', () => {
  // Schemas as the contract writes them, with messages of their own.
  const schema = z.object({
    name: z.string({ error: 'This field is required.' }),
    id: z.uuid({ error: 'Must be a UUID.' }),
    kind: z.enum(['user', 'project']),
    pick: z.union([z.literal('me'), z.uuid()]),
    count: z.int(),
    flag: z.boolean(),
    tags: z.array(z.object({ n: z.number() })).optional(),
  });

  it('says "This field is required." for every missing field, whatever the schema says', () => {
    const required = ['This field is required.'];
    expect(errorsOf(schema, {})).toEqual({ name: required, id: required, kind: required, pick: required, count: required, flag: required });
    expect(errorsOf(schema, { name: 'a', id: '00000000-0000-4000-8000-000000000000', kind: 'user', pick: 'me', count: 1, flag: true, tags: [{}] })).toEqual({ 'tags.0.n': required });
  });

  it('names the expected and the sent type for a wrong type, never "required"', () => {
    expect(errorsOf(schema, { name: 5, id: 6, kind: 'group', pick: 'x', count: 1.5, flag: 'on', tags: {} })).toEqual({
      name: ['Must be text, not a number.'],
      id: ['Must be text, not a number.'],
      kind: ['Must be one of user, project.'],
      pick: [expect.any(String)],
      count: ['Must be a whole number.'],
      flag: ['Must be true or false, not text.'],
      tags: ['Must be a list, not a JSON object.'],
    });
    expect(errorsOf(schema, { name: null })['name']).toEqual(['Must be text, not null.']);
  });

  it("keeps a schema's own message for everything else", () => {
    expect(errorsOf(z.object({ id: z.uuid({ error: 'Must be a UUID.' }) }), { id: 'x' })).toEqual({ id: ['Must be a UUID.'] });
    expect(errorsOf(z.object({ n: z.string().max(2, 'Too long.') }), { n: 'abc' })).toEqual({ n: ['Too long.'] });
  });
});
