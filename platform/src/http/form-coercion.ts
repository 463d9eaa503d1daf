import type { core, z } from 'zod';
import { depthMessage, jsonNestingExceeds } from './body-text.ts';
import { booleanFromText } from './boolean-spellings.ts';
import { httpErrors } from './http-error.ts';

/** Every schema zod builds is one of its core types, whose definitions discriminate on `type`. */
function defOf(schema: core.$ZodType): core.$ZodTypes['_zod']['def'] {
  return (schema as core.$ZodTypes)._zod.def;
}

/** Looks through optional, nullable, default and pipes to the schema a field finally holds. */
function innerSchema(schema: core.$ZodType): core.$ZodType {
  let current = schema;
  for (let depth = 0; depth < 10; depth += 1) {
    const def = defOf(current);
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default' || def.type === 'prefault' || def.type === 'readonly') {
      current = def.innerType;
    } else if (def.type === 'pipe') {
      current = def.in;
    } else {
      return current;
    }
  }
  return current;
}

/** Types whose values are objects (or anything: the structured query's `where`), sent in forms as JSON text. */
const jsonKinds = new Set(['object', 'record', 'unknown', 'any']);

/**
 * What a form field becomes (DECISIONS.md 8): `json`, an object as JSON text; `jsonList`, a
 * list as JSON text or as repeated fields, each an object as JSON text (lists of objects)
 * or an id (lists of ids: a value beginning with `[` cannot be an id, so it is JSON);
 * `list`, repeated fields of text, or a JSON list of texts.
 */
type FieldKind = { readonly kind: 'json' | 'jsonList' | 'list' | 'boolean' | 'number' | 'other'; readonly itemsAreJson: boolean };

function fieldKind(schema: core.$ZodType): FieldKind {
  const def = defOf(innerSchema(schema));
  if (jsonKinds.has(def.type)) return { kind: 'json', itemsAreJson: false };
  if (def.type === 'boolean') return { kind: 'boolean', itemsAreJson: false };
  if (def.type === 'number') return { kind: 'number', itemsAreJson: false };
  if (def.type !== 'array') return { kind: 'other', itemsAreJson: false };
  const item = defOf(innerSchema(def.element));
  if (jsonKinds.has(item.type)) return { kind: 'jsonList', itemsAreJson: true };
  if (item.type === 'string' && 'format' in item && item.format === 'uuid') return { kind: 'jsonList', itemsAreJson: false };
  return { kind: 'list', itemsAreJson: false };
}

const notJson = 'Not valid JSON text: in a form, send an object, or a list of them, as JSON text.';

/** A JSON text, bounded like a JSON body before it is parsed; the error names nothing: the caller names the field. */
function parseJson(text: string): { value: unknown } | { error: string } {
  if (jsonNestingExceeds(text)) return { error: depthMessage };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { error: notJson };
  }
}

type Coerced = { value: unknown } | { error: string };

function coerceValue(field: FieldKind, value: unknown): Coerced {
  const single = Array.isArray(value) ? value.at(-1) : value;
  switch (field.kind) {
    case 'boolean': {
      if (typeof single !== 'string') return { value: single };
      // Not a spelling of a boolean: left as text, so the schema names the field (400).
      return { value: booleanFromText(single) ?? single };
    }
    case 'number':
      return { value: typeof single === 'string' && single.trim() !== '' && Number.isFinite(Number(single)) ? Number(single) : single };
    case 'json':
      return typeof single === 'string' ? parseJson(single) : { value: single };
    case 'list':
      if (Array.isArray(value)) return { value };
      if (typeof value !== 'string') return { value: [value] };
      if (value === '') return { value: [] };
      // A JSON list of texts is a list; anything else (`[draft]` too) is one text.
      if (value.trimStart().startsWith('[')) {
        const parsed = parseJson(value);
        if ('value' in parsed && Array.isArray(parsed.value)) return parsed;
      }
      return { value: [value] };
    case 'jsonList':
      return coerceJsonList(field, value);
    default:
      return { value: single };
  }
}

/** A list of objects or ids: one JSON list, or repeated fields (each an object as JSON text, or an id). */
function coerceJsonList(field: FieldKind, value: unknown): Coerced {
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 1 && values[0] === '') return { value: [] };
  if (values.length === 1 && typeof values[0] === 'string' && values[0].trimStart().startsWith('[')) return parseJson(values[0]);
  const items: unknown[] = [];
  for (const item of values) {
    if (typeof item !== 'string' || !field.itemsAreJson) {
      items.push(item);
      continue;
    }
    const parsed = parseJson(item);
    if ('error' in parsed) return parsed;
    items.push(parsed.value);
  }
  return { value: items };
}

/**
 * Form fields arrive as strings (or lists of strings when repeated): turn them into the
 * booleans, numbers, lists and JSON objects the schema expects, so one schema validates
 * all three body encodings (docs/http.md, "Forms"). JSON text that does not parse, or
 * nests too deep, is 400 naming each such field.
 */
export function coerceFormBody(schema: z.ZodType, body: Record<string, unknown>): Record<string, unknown> {
  const def = defOf(schema);
  if (def.type !== 'object') return body;
  const shape: Readonly<Record<string, core.$ZodType>> = def.shape;
  // Field names come from the client: only the shape's own keys count (never `toString` or
  // `constructor` of Object.prototype), and the result inherits nothing.
  const result = Object.create(null) as Record<string, unknown>;
  const errors = Object.create(null) as Record<string, string[]>;
  for (const [key, value] of Object.entries(body)) {
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!field) {
      result[key] = value;
      continue;
    }
    const coerced = coerceValue(fieldKind(field), value);
    if ('error' in coerced) errors[key] = [coerced.error];
    else result[key] = coerced.value;
  }
  if (Object.keys(errors).length > 0) throw httpErrors.validation(errors, 'The request body is not valid.');
  return result;
}
