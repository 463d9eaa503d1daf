import fc from 'fast-check';
import { IdRef, type JsonLike, type Kind, oddStrings, plainObject } from './values.ts';

/**
 * JSON Schema (as the served OpenAPI document holds it: zod's `toJSONSchema` of the
 * contract's request schemas) to fast-check arbitraries of values the schema accepts, or
 * nearly: refinements that JSON Schema cannot express (a markdown note's length, a
 * metadata object's depth) are not known here, so a few "valid" values are refused, which
 * is fine for a fuzzer. uuid fields take ids of the world, picked by the field's name.
 */
export type JsonSchema = { [key: string]: unknown };

export type SchemaContext = {
  readonly components: Readonly<Record<string, JsonSchema>>;
};

const uuidKinds: Readonly<Record<string, readonly Kind[]>> = {
  organization_id: ['organization'],
  org_pk: ['organization'],
  user_id: ['user', 'caller'],
  user: ['user', 'caller'],
  owner_id: ['caller', 'user', 'project', 'organization'],
  to_asset_id: ['asset'],
  asset_ids: ['asset'],
  collection_id: ['collection'],
  subject_id: ['user', 'caller', 'group', 'organization', 'project'],
  geobound_allowed_country_set: ['countrySet'],
  geobound_denied_country_set: ['countrySet'],
};

/** A world id for a field of this name, now and then one of another kind or a fresh UUID. */
export function idFor(name: string): fc.Arbitrary<JsonLike> {
  const kinds = uuidKinds[name] ?? ['any'];
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(fc.constantFrom(...kinds), fc.nat()).map(([kind, n]): JsonLike => new IdRef(kind, n)) },
    { weight: 1, arbitrary: fc.nat().map((n): JsonLike => new IdRef('any', n)) },
    { weight: 2, arbitrary: fc.uuid() },
  );
}

/** Short printable text, sometimes unicode, sometimes one of the odd strings. */
export function text(minLength = 0, maxLength = 40): fc.Arbitrary<string> {
  const max = Math.max(minLength, Math.min(maxLength, 40));
  return fc.oneof(
    { weight: 6, arbitrary: fc.string({ minLength, maxLength: max }) },
    { weight: 2, arbitrary: fc.string({ minLength, maxLength: max, unit: 'grapheme' }) },
    { weight: 2, arbitrary: fc.constantFrom('Glacier mass balance', 'dataset', 'Zürich 2024', 'Ω-mega', '北极', 'a b c').filter((s) => s.length >= minLength && s.length <= maxLength) },
    { weight: 1, arbitrary: fc.constantFrom(...oddStrings).filter((s) => s.length >= minLength && s.length <= maxLength) },
  );
}

function boundaryString(minLength: number, maxLength: number | undefined): fc.Arbitrary<string>[] {
  if (maxLength === undefined || maxLength > 20_000) return [];
  return [fc.constant('x'.repeat(Math.max(minLength, maxLength))), fc.constant(`${'é'.repeat(Math.max(0, maxLength - 1))}x`.slice(0, maxLength))];
}

const resolveRef = (schema: JsonSchema, ctx: SchemaContext): JsonSchema => {
  const ref = schema['$ref'];
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = ctx.components[name];
  if (!target) throw new Error(`unknown schema reference ${ref}`);
  return target;
};

/** Values a JSON object field of unknown shape (asset metadata) may hold. */
export const metadataValue: fc.Arbitrary<JsonLike> = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonLike>;

export const metadataKey = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('station', 'depth', 'year', 'tags', 'site', 'n', 'nested') },
  { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('a.b', '', ' ', '$', "'", '"', '\\', 'é', '__proto__', 'constructor', 'toString') },
);

export const metadataObject: fc.Arbitrary<JsonLike> = fc.array(fc.tuple(metadataKey, metadataValue), { maxLength: 6 }).map((entries) => plainObject(entries));

const fieldNames = ['title', 'alias', 'record_type', 'tags', 'owner_id', 'owner_type', 'created_at', 'updated_at', 'is_locked', 'collection_id', 'description', 'id'];
const queryOps = ['eq', 'ne', 'in', 'exists', 'gt', 'gte', 'lt', 'lte', 'prefix', 'contains'];

const conditionValue: fc.Arbitrary<JsonLike> = fc.oneof(
  text(0, 30),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2024-13-45T99:99:99Z', 'yesterday', '1e999', '-0'),
  idFor('owner_id'),
  fc.array(fc.oneof(text(0, 10), fc.integer(), idFor('owner_id')), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }) as fc.Arbitrary<JsonLike>,
);

const isoDate = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const op = (...ops: string[]) => fc.constantFrom(...ops);

/** A condition on one field that fits the field: most of the conditions sent. */
const fittingLeaf: fc.Arbitrary<JsonLike> = fc.oneof(
  fc.record({ field: fc.constantFrom('title', 'alias', 'record_type'), op: op('eq', 'ne', 'prefix'), value: text(0, 20) }),
  fc.record({ field: fc.constantFrom('title', 'alias', 'record_type'), op: op('in'), value: fc.array(text(0, 10), { minLength: 1, maxLength: 4 }) }),
  fc.record({ field: fc.constantFrom('tags'), op: op('contains', 'eq'), value: fc.constantFrom('ice', 'fuzz', 'x') }),
  fc.record({ field: fc.constantFrom('owner_id', 'collection_id'), op: op('eq', 'ne'), value: idFor('owner_id') }),
  fc.record({ field: fc.constantFrom('owner_id', 'collection_id'), op: op('in'), value: fc.array(idFor('owner_id'), { minLength: 1, maxLength: 3 }) }),
  fc.record({ field: fc.constant('owner_type'), op: op('eq', 'ne'), value: fc.constantFrom('user', 'project', 'organization') }),
  fc.record({ field: fc.constantFrom('created_at', 'updated_at'), op: op('gt', 'gte', 'lt', 'lte'), value: isoDate }),
  fc.record({ field: fc.constant('is_locked'), op: op('eq', 'ne'), value: fc.boolean() }),
  fc.record({ field: fc.constantFrom('title', 'alias', 'tags', 'owner_id', 'collection_id'), op: op('exists') }),
  fc.record({ field: metadataKey.map((k) => `metadata.${k}`), op: op('eq', 'ne', 'exists', 'prefix', 'contains'), value: fc.oneof(text(0, 10), fc.integer(), fc.boolean()) }),
  fc.record({ field: fc.constantFrom('metadata.depth', 'metadata.year', 'metadata.nested.year', 'metadata.n'), op: op('gt', 'gte', 'lt', 'lte'), value: fc.oneof(fc.integer({ min: -10, max: 3000 }), fc.double({ noNaN: true, noDefaultInfinity: true }), isoDate) }),
) as fc.Arbitrary<JsonLike>;

/** Any condition on one field: unknown fields and operators, values of any type. */
const anyLeaf: fc.Arbitrary<JsonLike> = fc.record(
  {
    field: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...fieldNames) },
      { weight: 3, arbitrary: metadataKey.map((k) => `metadata.${k}`) },
      { weight: 1, arbitrary: fc.constantFrom('metadata', 'metadata.', 'metadata..a', 'metadata.a.b.c.d.e.f.g.h.i.j.k', 'unknown', '', 'title; drop table events') },
    ),
    op: fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...queryOps) }, { weight: 1, arbitrary: fc.constantFrom('like', '', 'EQ', '__proto__') }),
    value: conditionValue,
  },
  { requiredKeys: ['field', 'op'] },
) as fc.Arbitrary<JsonLike>;

/** The asset query's condition language (DECISIONS.md 4), mostly well-formed. */
export const queryCondition: fc.Arbitrary<JsonLike> = fc.letrec<{ cond: JsonLike }>((tie) => ({
  cond: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: fittingLeaf },
    { weight: 1, arbitrary: anyLeaf },
    { weight: 1, arbitrary: fc.record({ and: fc.array(tie('cond'), { minLength: 1, maxLength: 4 }) }) as fc.Arbitrary<JsonLike> },
    { weight: 1, arbitrary: fc.record({ or: fc.array(tie('cond'), { minLength: 1, maxLength: 4 }) }) as fc.Arbitrary<JsonLike> },
    { weight: 1, arbitrary: fc.record({ not: tie('cond') }) as fc.Arbitrary<JsonLike> },
  ),
})).cond;

/** Overrides by field name, where the schema says less than the handler expects. */
function hinted(name: string): fc.Arbitrary<JsonLike> | undefined {
  if (name === 'where') return queryCondition;
  if (name === 'metadata') return metadataObject;
  return undefined;
}

/** A value about one time in three, else absent. */
export function sometimes<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

const ownerPair: fc.Arbitrary<[string, JsonLike][]> = fc.oneof(
  fc.tuple(fc.constantFrom<Kind>('caller', 'user'), fc.nat()).map(([kind, n]): [string, JsonLike][] => [['owner_type', 'user'], ['owner_id', new IdRef(kind, n)]]),
  fc.nat().map((n): [string, JsonLike][] => [['owner_type', 'project'], ['owner_id', new IdRef('project', n)]]),
  fc.nat().map((n): [string, JsonLike][] => [['owner_type', 'organization'], ['owner_id', new IdRef('organization', n)]]),
  fc.tuple(fc.constantFrom('user', 'project', 'organization'), idFor('owner_id')).map(([type, id]): [string, JsonLike][] => [['owner_type', type], ['owner_id', id]]),
);

const subjectPair: fc.Arbitrary<[string, JsonLike][]> = fc.oneof(
  fc.constantFrom<[string, JsonLike][]>([['subject_type', 'public']], [['subject_type', 'public'], ['subject_id', null]]),
  fc.tuple(fc.constantFrom<[string, Kind]>(['user', 'user'], ['user', 'caller'], ['group', 'group'], ['organization', 'organization'], ['project', 'project']), fc.nat()).map(([[type, kind], n]): [string, JsonLike][] => [['subject_type', type], ['subject_id', new IdRef(kind, n)]]),
  fc.tuple(fc.constantFrom('user', 'group', 'organization', 'project', 'public'), idFor('subject_id')).map(([type, id]): [string, JsonLike][] => [['subject_type', type], ['subject_id', id]]),
);

/** An arbitrary of values that `schema` (probably) accepts. `name` is the field's name. */
export function valueFor(schema: JsonSchema, ctx: SchemaContext, name = ''): fc.Arbitrary<JsonLike> {
  const hint = hinted(name);
  if (hint) return hint;
  const s = resolveRef(schema, ctx);
  if ('const' in s) return fc.constant(s['const'] as JsonLike);
  if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as JsonLike[]));
  const anyOf = (s['anyOf'] ?? s['oneOf']) as JsonSchema[] | undefined;
  if (Array.isArray(anyOf)) return fc.oneof(...anyOf.map((sub) => valueFor(sub, ctx, name)));
  switch (s['type']) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = typeof s['minimum'] === 'number' ? Math.max(s['minimum'], -(2 ** 31)) : -1000;
      const max = typeof s['maximum'] === 'number' ? Math.min(s['maximum'], 2 ** 31) : 1_000_000;
      return fc.oneof({ weight: 4, arbitrary: fc.integer({ min, max: Math.max(min, Math.min(max, min + 1000)) }) }, { weight: 1, arbitrary: fc.constantFrom(min, max) });
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: typeof s['minimum'] === 'number' ? s['minimum'] : -1e9, max: typeof s['maximum'] === 'number' ? s['maximum'] : 1e9 });
    case 'string': {
      if (s['format'] === 'uuid') return idFor(name);
      if (s['format'] === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      const minLength = typeof s['minLength'] === 'number' ? s['minLength'] : 0;
      const maxLength = typeof s['maxLength'] === 'number' ? s['maxLength'] : undefined;
      if (typeof s['pattern'] === 'string') return fc.stringMatching(new RegExp(s['pattern'] as string));
      return fc.oneof({ weight: 8, arbitrary: text(minLength, maxLength ?? 40) }, ...boundaryString(minLength, maxLength).map((arbitrary) => ({ weight: 1, arbitrary })));
    }
    case 'array': {
      const items = (s['items'] ?? {}) as JsonSchema;
      const minLength = typeof s['minItems'] === 'number' ? s['minItems'] : 0;
      const maxLength = Math.max(minLength, Math.min(typeof s['maxItems'] === 'number' ? s['maxItems'] : 5, 5));
      return fc.array(valueFor(items, ctx, name), { minLength, maxLength }) as fc.Arbitrary<JsonLike>;
    }
    case 'object': {
      const properties = (s['properties'] ?? {}) as Record<string, JsonSchema>;
      const required = new Set((s['required'] ?? []) as string[]);
      const names = Object.keys(properties);
      if (names.length === 0) {
        const additional = s['additionalProperties'];
        if (additional && typeof additional === 'object') return fc.dictionary(metadataKey, valueFor(additional as JsonSchema, ctx), { maxKeys: 4 }) as fc.Arbitrary<JsonLike>;
        return fc.constant(plainObject([]));
      }
      // An owner is named by its kind and id together: kept coherent, or the body is mostly refused.
      const owner = names.includes('owner_type') && names.includes('owner_id');
      // A permission entry's subject likewise.
      const subject = names.includes('subject_type') && names.includes('subject_id');
      const fields = names
        .filter((key) => !(owner && (key === 'owner_type' || key === 'owner_id')) && !(subject && (key === 'subject_type' || key === 'subject_id')))
        .map((key) => {
          const value = valueFor(properties[key] ?? {}, ctx, key);
          return (required.has(key) ? value : sometimes(value)).map((v): [string, JsonLike][] => (v === undefined ? [] : [[key, v]]));
        });
      if (owner) fields.push(sometimes(ownerPair).map((pair) => pair ?? []));
      if (subject) fields.push(subjectPair);
      return fc.tuple(...fields).map((entries) => plainObject(entries.flat()));
    }
    default:
      // No type at all ({}): anything JSON.
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonLike>;
  }
}
