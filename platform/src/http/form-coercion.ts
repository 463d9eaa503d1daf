import type { core, z } from 'zod';
import { depthMessage, jsonNestingExceeds } from './body-text.ts';
import { booleanFromText } from './boolean-spellings.ts';
import { httpErrors } from './http-error.ts';

/** Every schema zod builds is one of its core types, whose definitions discriminate on `type`. */
function defOf(schema: core.$ZodType): core.$ZodTypes['_zod']['def'] {
  return (schema as core.$ZodTypes)._zod.def;
}

/** Looks through optional, nullable, default and pipes to the type a field finally holds. */
function coreType(schema: core.$ZodType): string {
  let current = schema;
  for (let depth = 0; depth < 10; depth += 1) {
    const def = defOf(current);
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default' || def.type === 'prefault' || def.type === 'readonly') {
      current = def.innerType;
    } else if (def.type === 'pipe') {
      current = def.in;
    } else {
      return def.type;
    }
  }
  return 'unknown';
}

function coerceValue(key: string, kind: string, value: unknown): unknown {
  const single = Array.isArray(value) ? value.at(-1) : value;
  switch (kind) {
    case 'boolean': {
      if (typeof single !== 'string') return single;
      // Not a spelling of a boolean: left as text, so the schema names the field (400).
      return booleanFromText(single) ?? single;
    }
    case 'number':
    case 'int':
      return typeof single === 'string' && single.trim() !== '' && Number.isFinite(Number(single)) ? Number(single) : single;
    case 'array':
      if (Array.isArray(value)) return value;
      return typeof value === 'string' && value === '' ? [] : [value];
    case 'object':
    case 'record':
      if (typeof single !== 'string') return single;
      // A JSON form value is bounded like a JSON body, before it is parsed.
      if (jsonNestingExceeds(single)) throw httpErrors.validation({ [key]: [depthMessage] }, 'The request body is not valid.');
      try {
        return JSON.parse(single) as unknown;
      } catch {
        return single;
      }
    default:
      return single;
  }
}

/**
 * Form fields arrive as strings (or lists of strings when repeated): turn them into the
 * booleans, numbers, lists and JSON objects the schema expects, so one schema validates
 * all three body encodings.
 */
export function coerceFormBody(schema: z.ZodType, body: Record<string, unknown>): Record<string, unknown> {
  const def = defOf(schema);
  if (def.type !== 'object') return body;
  const shape: Readonly<Record<string, core.$ZodType>> = def.shape;
  // Field names come from the client: only the shape's own keys count (never `toString` or
  // `constructor` of Object.prototype), and the result inherits nothing.
  const result = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(body)) {
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    result[key] = field ? coerceValue(key, coreType(field), value) : value;
  }
  return result;
}
