import fc from 'fast-check';
import type { Operation } from './operations.ts';
import { metadataKey, sometimes, text, valueFor, type JsonSchema, type SchemaContext } from './schema-arbitrary.ts';
import { Deep, Huge, IdRef, type JsonLike, oddStrings, plainObject, prototypeNames, RawBytes } from './values.ts';

/**
 * One generated request, still abstract: world ids are references and big payloads are
 * descriptions. `wire.ts` turns it into bytes when it is sent.
 */
export type Credential = 'none' | 'garbage' | 'altered' | 'basic' | 'cookie' | 'plain' | 'admin' | 'readOnly';

export type PathArg =
  | { readonly t: 'real' } // the world's entity of the parameter's kind (index in `n` of the case)
  | { readonly t: 'foreign'; readonly ref: IdRef } // a real id of another kind
  | { readonly t: 'random'; readonly uuid: string }
  | { readonly t: 'upper' } // a real id in capitals
  | { readonly t: 'raw'; readonly text: string }; // not a UUID at all (sent percent-encoded)

export type QueryPart = { readonly key: string; readonly value: string | IdRef | null; readonly raw?: boolean };

export type Encoding = 'json' | 'form' | 'multipart';

export type BodySpec =
  | { readonly t: 'none' }
  | { readonly t: 'value'; readonly value: JsonLike; readonly encoding: Encoding }
  | { readonly t: 'text'; readonly text: string; readonly contentType: string | null }
  | { readonly t: 'fields'; readonly fields: readonly (readonly [string, JsonLike])[]; readonly encoding: 'form' | 'multipart' }
  | { readonly t: 'formText'; readonly text: string }
  | { readonly t: 'manyFields'; readonly count: number; readonly encoding: 'form' | 'multipart' }
  | { readonly t: 'multipartRaw'; readonly which: 'no-boundary' | 'wrong-boundary' | 'unterminated' | 'no-name' | 'file' | 'many-files' | 'bad-header' };

export type ContentEncoding = 'identity' | 'gzip' | 'deflate' | 'br' | 'zstd' | 'bad-gzip' | 'bad-deflate' | 'bad-br' | 'bad-zstd' | 'unknown' | 'gzip-twice';

export type FuzzCase = {
  readonly operationId: string;
  /** Which generator made it (the report's rows). */
  readonly variant: string;
  readonly credential: Credential;
  /** Picks the world entities for the `real` and `upper` path arguments. */
  readonly n: number;
  /** For two-parameter paths: take a parent and child that belong together. */
  readonly paired: boolean;
  readonly pathArgs: readonly PathArg[];
  readonly query: readonly QueryPart[];
  readonly body: BodySpec;
  readonly contentEncoding: ContentEncoding;
  readonly consistency: 'none' | 'real' | 'garbage' | 'forged';
  /** Idempotency-Key: one of a few keys (so some are reused with other requests: 422), or not a valid key. */
  readonly idempotency: 'none' | 'pool' | 'bad';
  /** An If-Match precondition that is not the current provenance token (412 where it applies). */
  readonly ifMatch: boolean;
};

const invalidUtf8 = ['fffe', 'ff', 'c0af', 'eda080', 'f4908080', 'c3', '80', 'e282', 'fe', 'f8888080'];

/** Values of the wrong type or size for any field. */
export function hostileValue(): fc.Arbitrary<JsonLike> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom<JsonLike>(123, -1, 0, 1.5, -0, 1e308, 2 ** 53 + 1, true, false, null, [], plainObject([]), '', [null], [[]], ['a', 1, true]) },
    { weight: 3, arbitrary: fc.constantFrom(...oddStrings) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20, unit: 'binary' }) },
    { weight: 1, arbitrary: fc.constantFrom(new Huge(256, 'x'), new Huge(1001, 'y'), new Huge(10_001, 'é'), new Huge(70_000, 'a'), new Huge(5000, '\uD83D\uDE00')) },
    { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 2, max: 100 }), fc.constantFrom('array' as const, 'object' as const)).map(([d, s]) => new Deep(d, s)) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('', 'bad', 'ok '), fc.constantFrom(...invalidUtf8)).map(([p, h]) => new RawBytes(p, h)) },
    { weight: 1, arbitrary: fc.constantFrom(...prototypeNames).map((k) => plainObject([[k, plainObject([['polluted', true]])]])) },
    { weight: 1, arbitrary: fc.nat().map((n) => new IdRef('any', n)) },
  );
}

function fieldNamesOf(schema: JsonSchema | undefined, ctx: SchemaContext): string[] {
  if (!schema) return [];
  const ref = schema['$ref'];
  const s = typeof ref === 'string' ? (ctx.components[ref.replace('#/components/schemas/', '')] ?? {}) : schema;
  return Object.keys((s['properties'] ?? {}) as object);
}

/** A valid body with one thing wrong. */
function mutated(op: Operation, ctx: SchemaContext, valid: fc.Arbitrary<JsonLike>): fc.Arbitrary<{ value: JsonLike; variant: string }> {
  const names = fieldNamesOf(op.body, ctx);
  const someName = names.length > 0 ? fc.constantFrom(...names) : fc.constant('x');
  const withEntry = (variant: string, key: fc.Arbitrary<string>, value: fc.Arbitrary<JsonLike>) =>
    fc.tuple(valid, key, value).map(([base, k, v]) => ({ value: plainObject([...entriesOf(base), [k, v]]), variant }));
  return fc.oneof(
    { weight: 5, arbitrary: withEntry('wrong type', someName, hostileValue()) },
    { weight: 2, arbitrary: fc.tuple(valid, someName).map(([base, k]) => ({ value: plainObject(entriesOf(base).filter(([name]) => name !== k)), variant: 'missing field' })) },
    { weight: 1, arbitrary: withEntry('unknown field', fc.string({ minLength: 1, maxLength: 10 }), hostileValue()) },
    { weight: 2, arbitrary: withEntry('prototype key', fc.constantFrom(...prototypeNames), hostileValue()) },
    { weight: 1, arbitrary: fc.constantFrom<JsonLike>([], ['x'], 'text', 42, null, true).map((value) => ({ value, variant: 'not an object' })) },
    { weight: 1, arbitrary: withEntry('metadata hostile', fc.constant('metadata'), hostileMetadata()) },
  );
}

function hostileMetadata(): fc.Arbitrary<JsonLike> {
  return fc.oneof(
    fc.constantFrom(...prototypeNames).map((k) => plainObject([[k, plainObject([['a', 1]])]])),
    fc.integer({ min: 8, max: 14 }).map((d) => plainObject([['deep', new Deep(d, 'object')]])),
    fc.constant(plainObject([['big', new Huge(70_000, 'm')]])),
    fc.constant(plainObject([[new Huge(201, 'k').text(), 1]])),
    fc.constantFrom(...oddStrings).map((k) => plainObject([[k, k]])),
    fc.constant(plainObject([['n', 1e308], ['m', -0], ['x', 2 ** 60]])),
  );
}

function entriesOf(value: JsonLike): [string, JsonLike][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof IdRef || value instanceof RawBytes || value instanceof Deep || value instanceof Huge) return [];
  return Object.entries(value);
}

/** Payloads that are hostile as a whole, each with the encoding it needs. */
function hostileBody(op: Operation, ctx: SchemaContext, valid: fc.Arbitrary<JsonLike>): fc.Arbitrary<{ body: BodySpec; variant: string }> {
  const names = fieldNamesOf(op.body, ctx);
  const someName = names.length > 0 ? fc.constantFrom(...names) : fc.constant('x');
  const json = (variant: string, arb: fc.Arbitrary<string>, contentType: string | null = 'application/json') => arb.map((t) => ({ body: { t: 'text', text: t, contentType } as BodySpec, variant }));
  // Mostly up to 100 levels; now and then the 2,000 of issue 14.
  const deepDepth = fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 1, max: 100 }) }, { weight: 1, arbitrary: fc.integer({ min: 1000, max: 3000 }) });
  const formNames = fc.oneof(someName, fc.constantFrom(...prototypeNames), fc.constantFrom('a[]', 'a[b]', '', ' ', '%', 'tags[]'));
  return fc.oneof(
    // Depth and width.
    { weight: 3, arbitrary: fc.tuple(someName, deepDepth, fc.constantFrom('array' as const, 'object' as const)).map(([k, d, s]) => ({ body: { t: 'value', value: plainObject([[k, new Deep(d, s)]]), encoding: 'json' } as BodySpec, variant: d > 100 ? 'deep json (over 100)' : 'deep json' })) },
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1000, max: 100_000 })).map(([d, w]) => ({ body: { t: 'value', value: plainObject([['x', new Deep(d, 'array', w)]]), encoding: 'json' } as BodySpec, variant: 'deep and wide json' })) },
    { weight: 1, arbitrary: json('deep json text', fc.integer({ min: 1, max: 100 }).map((d) => '['.repeat(d) + ']'.repeat(d))) },
    // Size.
    { weight: 2, arbitrary: fc.tuple(valid, someName, fc.constantFrom(300_000, 1_048_000, 1_048_577, 2_000_000)).map(([base, k, n]) => ({ body: { t: 'value', value: plainObject([...entriesOf(base), [k, new Huge(n, 'x')]]), encoding: 'json' } as BodySpec, variant: 'huge string' })) },
    // Bytes and text that are not (valid) JSON.
    { weight: 2, arbitrary: fc.tuple(valid, someName, fc.constantFrom(...invalidUtf8), fc.constantFrom<Encoding>('json', 'json', 'form', 'multipart')).map(([base, k, h, encoding]) => ({ body: { t: 'value', value: plainObject([...entriesOf(base), [k, new RawBytes('bad', h)]]), encoding } as BodySpec, variant: `invalid utf-8 (${encoding})` })) },
    {
      weight: 3,
      arbitrary: json(
        'malformed json',
        fc.constantFrom('{"title": "abc', '{', '}', 'nul', '{"a":1,}', "{'a':1}", 'NaN', '{"a":NaN}', '{"a":1e999}', '\uFEFF{"title":"x"}', '{"title":"x"}garbage', '{"title":"x"} {"title":"y"}', '[]', '"x"', '1', 'null', 'true', '', ' ', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"\\u0000":1}', '{"a":"\\x41"}', '{"title":"a","title":{"x":1}}', '{"__proto__":{"isAdmin":true},"title":"p"}'),
      ),
    },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('text/plain', 'application/xml', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'multipart/form-data', 'application/x-www-form-urlencoded; charset=iso-8859-1', '', 'application/vnd.api+json', 'APPLICATION/JSON', 'application/json; charset=UTF-8', 'image/png', 'application/octet-stream', '*/*', 'application/json, text/plain'), valid).map(([type, value]) => ({ body: { t: 'text', text: stringifyLoose(value), contentType: type } as BodySpec, variant: 'odd content type' })) },
    { weight: 1, arbitrary: valid.map((value) => ({ body: { t: 'text', text: stringifyLoose(value), contentType: null } as BodySpec, variant: 'no content type' })) },
    // Forms and multipart.
    { weight: 3, arbitrary: fc.tuple(fc.array(fc.tuple(formNames, hostileValue()), { minLength: 1, maxLength: 5 }), fc.constantFrom('form' as const, 'multipart' as const)).map(([fields, encoding]) => ({ body: { t: 'fields', fields, encoding } as BodySpec, variant: `hostile ${encoding} fields` })) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%FF%FE=%FF', '=', '&&&', 'a', 'a=1&a=2&a=3', '%00=%00', 'tags[]=a&tags[]=b&tags=c', 'title=%E2%80%AE', 'title', '=x', 'a=%').map((t) => ({ body: { t: 'formText', text: t } as BodySpec, variant: 'odd form text' })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(999, 1001, 1200), fc.constantFrom('form' as const, 'multipart' as const)).map(([count, encoding]) => ({ body: { t: 'manyFields', count, encoding } as BodySpec, variant: 'many fields' })) },
    { weight: 2, arbitrary: fc.constantFrom('no-boundary', 'wrong-boundary', 'unterminated', 'no-name', 'file', 'many-files', 'bad-header').map((which) => ({ body: { t: 'multipartRaw', which } as BodySpec, variant: `broken multipart (${which})` })) },
  );
}

/** JSON text of a value with the world references as placeholders (for content-type tests). */
function stringifyLoose(value: JsonLike): string {
  return JSON.stringify(value, (_key, v: unknown) => (v instanceof IdRef || v instanceof RawBytes || v instanceof Deep || v instanceof Huge ? String(v) : v));
}

const pathArg: fc.Arbitrary<PathArg> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<PathArg>({ t: 'real' }) },
  { weight: 1, arbitrary: fc.nat().map((n): PathArg => ({ t: 'foreign', ref: new IdRef('any', n) })) },
  { weight: 2, arbitrary: fc.uuid().map((uuid): PathArg => ({ t: 'random', uuid })) },
  { weight: 1, arbitrary: fc.constant<PathArg>({ t: 'upper' }) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom('', 'abc', '123', '..', '.', 'null', 'undefined', '__proto__', 'constructor', 'me', '00000000-0000-0000-0000-00000000000', '00000000-0000-0000-0000-0000000000000', '{00000000-0000-0000-0000-000000000000}', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz', ' 00000000-0000-0000-0000-000000000000', '1 or 1=1', '\u0000', '\uD800', 'é', 'a/b', '%2F', '%'),
        fc.uuid().map((u) => `${u}x`),
        fc.uuid().map((u) => u.replaceAll('-', '')),
        fc.constant('x'.repeat(3000)),
        fc.string({ maxLength: 40, unit: 'grapheme' }),
      )
      .map((text): PathArg => ({ t: 'raw', text })),
  },
);

const credential: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Credential>('admin') },
  { weight: 6, arbitrary: fc.constant<Credential>('plain') },
  { weight: 1, arbitrary: fc.constant<Credential>('readOnly') },
  { weight: 1, arbitrary: fc.constantFrom<Credential>('none', 'garbage', 'altered', 'basic', 'cookie') },
);

function queryValue(schema: JsonSchema, ctx: SchemaContext, name: string): fc.Arbitrary<string | IdRef> {
  if (name === 'cursor') return fc.oneof(fc.nat().map((n) => new IdRef('cursor', n)), text(0, 60), fc.base64String({ maxLength: 200 }));
  if (name === 'metadata') return fc.oneof(metadataKey, fc.tuple(metadataKey, text(0, 20)).map(([k, v]) => `${k}:${v}`));
  if (name === 'locked' || name === 'include_deactivated') return fc.oneof({ weight: 4, arbitrary: fc.constantFrom('true', 'false', '1', '0', 'yes', 'no', 'TRUE') }, { weight: 1, arbitrary: text(0, 10) });
  if (name === 'tags' || name === 'record_type') return fc.array(fc.constantFrom('ice', 'fuzz', 'dataset', 'x', '', ' '), { maxLength: 3 }).map((list) => list.join(','));
  return valueFor(schema, ctx, name).map((v): string | IdRef => {
    if (v instanceof IdRef) return v;
    if (Array.isArray(v)) return v.map((x) => String(x)).join(',');
    if (typeof v === 'string') return v;
    return JSON.stringify(v) ?? '';
  });
}

function queryParts(op: Operation, ctx: SchemaContext): fc.Arbitrary<QueryPart[]> {
  const declared = op.query.map((p) => sometimes(queryValue(p.schema, ctx, p.name).map((value): QueryPart => ({ key: p.name, value }))));
  const names = [...op.query.map((p) => p.name), 'q', 'page', 'limit'];
  const extra: fc.Arbitrary<QueryPart> = fc.oneof(
    // Known names with hostile values, repeated or not.
    fc.tuple(fc.constantFrom(...names), fc.oneof(fc.constantFrom(...oddStrings), fc.constantFrom('-1', '0', '1e3', '99999999999999999999', 'true', 'yes', '[]', '{}', 'me'), fc.constant('q'.repeat(3000)))).map(([key, value]): QueryPart => ({ key, value })),
    // Unknown and prototype names.
    fc.tuple(fc.oneof(fc.constantFrom(...prototypeNames), fc.constantFrom('format', 'ordering', 'page_size', 'include_deactivated', 'q[]', 'q[a]', 'a.b', ''), fc.string({ minLength: 1, maxLength: 8 })), text(0, 10)).map(([key, value]): QueryPart => ({ key, value })),
    // Bytes percent-encoded by hand: invalid escapes and invalid UTF-8.
    fc.tuple(fc.constantFrom(...names), fc.constantFrom('%', '%zz', '%FF%FE', '%C0%AF', '%ED%A0%80', '%00', '%E2%80%AE', '+', '%2B', '%26', '%3D')).map(([key, value]): QueryPart => ({ key, value, raw: true })),
    fc.constantFrom(...names).map((key): QueryPart => ({ key, value: null })),
  );
  // Now and then a query string over Node's 16 KiB limit for the request head.
  const huge = fc.constantFrom(...names).map((key): QueryPart[] => [{ key, value: 'q'.repeat(17_000) }]);
  const repeats = fc.constantFrom(...names).chain((key) => fc.array(text(0, 8), { minLength: 2, maxLength: 60 }).map((values) => values.map((value): QueryPart => ({ key, value }))));
  return fc
    .tuple(
      fc.tuple(...declared),
      fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(extra, { minLength: 1, maxLength: 3 }) }),
      fc.oneof({ weight: 160, arbitrary: fc.constant([]) }, { weight: 20, arbitrary: repeats }, { weight: 1, arbitrary: huge }),
      fc.boolean(),
    )
    .map(([d, e, r, shuffleFirst]) => {
      const parts = [...d.filter((p): p is QueryPart => p !== undefined), ...e, ...r];
      return shuffleFirst ? parts.reverse() : parts;
    });
}

export type CaseOptions = {
  /** How often (in 1,000 requests) a consistency token far beyond the log's head is sent. */
  readonly forgedTokensPerMille: number;
};

const cut = (value: unknown, max = 60): string => {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > max ? `${text.slice(0, max)}…(${text.length})` : text;
};

/** How fast-check prints a case: short, the big values cut (the failure message has the request). */
function summarize(this: FuzzCase): string {
  const args = this.pathArgs.map((a) => (a.t === 'raw' ? JSON.stringify(cut(a.text, 40)) : a.t === 'random' ? a.uuid : a.t === 'foreign' ? String(a.ref) : a.t));
  const query = this.query.map((p) => `${cut(p.key, 20)}=${p.value === null ? '' : cut(p.value, 40)}`).join('&');
  return `${this.operationId} [${this.variant}] ${this.credential} n=${this.n}${this.paired ? ' paired' : ''} path(${args.join(', ')}) query(${cut(query, 300)}) body ${cut(JSON.stringify(this.body), 300)} ${this.contentEncoding} consistency=${this.consistency}${this.idempotency !== 'none' ? ` idempotency=${this.idempotency}` : ''}${this.ifMatch ? ' if-match' : ''}`;
}

/** Every kind of request the fuzzer sends to `op`. */
export function casesFor(op: Operation, ctx: SchemaContext, options: CaseOptions): fc.Arbitrary<FuzzCase> {
  const valid = op.body ? valueFor(op.body, ctx) : fc.constant<JsonLike>(plainObject([]));
  const encoding = fc.constantFrom<Encoding>('json', 'json', 'json', 'form', 'multipart');
  const bodies: fc.Arbitrary<{ body: BodySpec; variant: string }> = op.body
    ? fc.oneof(
        { weight: 8, arbitrary: fc.tuple(valid, encoding).map(([value, enc]) => ({ body: { t: 'value', value, encoding: enc } as BodySpec, variant: `valid (${enc})` })) },
        { weight: 6, arbitrary: fc.tuple(mutated(op, ctx, valid), fc.constantFrom<Encoding>('json', 'json', 'json', 'form', 'multipart')).map(([m, enc]) => ({ body: { t: 'value', value: m.value, encoding: enc } as BodySpec, variant: `${m.variant} (${enc})` })) },
        { weight: 5, arbitrary: hostileBody(op, ctx, valid) },
        { weight: 1, arbitrary: fc.constant({ body: { t: 'none' } as BodySpec, variant: 'no body' }) },
      )
    : fc.oneof(
        { weight: 9, arbitrary: fc.constant({ body: { t: 'none' } as BodySpec, variant: 'no body' }) },
        { weight: 1, arbitrary: hostileBody(op, ctx, valid).map((b) => ({ ...b, variant: `ignored body: ${b.variant}` })) },
      );
  const contentEncoding = fc.oneof(
    { weight: 80, arbitrary: fc.constant<ContentEncoding>('identity') },
    { weight: 8, arbitrary: fc.constant<ContentEncoding>('gzip') },
    { weight: 2, arbitrary: fc.constantFrom<ContentEncoding>('deflate', 'br', 'zstd', 'gzip-twice') },
    { weight: 2, arbitrary: fc.constantFrom<ContentEncoding>('bad-gzip', 'bad-deflate', 'bad-br', 'bad-zstd', 'unknown') },
  );
  const forged = Math.round(options.forgedTokensPerMille);
  const consistency = fc.oneof(
    { weight: 940 - forged, arbitrary: fc.constant('none' as const) },
    { weight: 40, arbitrary: fc.constant('real' as const) },
    { weight: 20, arbitrary: fc.constant('garbage' as const) },
    ...(forged > 0 ? [{ weight: forged, arbitrary: fc.constant('forged' as const) }] : []),
  );
  return fc
    .record({
      credential,
      n: fc.nat({ max: 1000 }),
      paired: fc.boolean(),
      pathArgs: fc.tuple(...op.params.map(() => pathArg)),
      query: queryParts(op, ctx),
      body: bodies,
      contentEncoding,
      consistency,
      idempotency: fc.oneof({ weight: 95, arbitrary: fc.constant('none' as const) }, { weight: 4, arbitrary: fc.constant('pool' as const) }, { weight: 1, arbitrary: fc.constant('bad' as const) }),
      ifMatch: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    })
    .map((r) => ({
      [fc.toStringMethod]: summarize,
      operationId: op.operationId,
      variant: r.body.variant,
      credential: r.credential,
      n: r.n,
      paired: r.paired,
      pathArgs: r.pathArgs,
      query: r.query,
      body: r.body.body,
      contentEncoding: r.body.body.t === 'none' ? 'identity' : r.contentEncoding,
      consistency: r.consistency,
      idempotency: r.idempotency,
      ifMatch: r.ifMatch,
    }));
}
