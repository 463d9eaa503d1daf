/**
 * Values that generated requests carry before they become bytes. A generated case stays
 * small and printable: ids are references into the world (resolved when the request is
 * sent, so deleted and re-created entities are followed), and the big payloads (deep
 * nesting, huge strings, invalid UTF-8) are descriptions that are built at send time.
 */

/** Kinds of entity the world holds; `any` takes an id of any kind. */
export type Kind =
  | 'user'
  | 'caller'
  | 'organization'
  | 'group'
  | 'project'
  | 'collection'
  | 'countrySet'
  | 'fundingAgency'
  | 'asset'
  | 'note'
  | 'relationship'
  | 'groupMember'
  | 'projectMember'
  | 'orgMembership'
  | 'cursor'
  | 'consistencyToken'
  | 'any';

/** An id of the world: the `n`-th entity of `kind` (modulo the pool's size) when sent. */
export class IdRef {
  readonly kind: Kind;
  readonly n: number;
  constructor(
    kind: Kind,
    n: number,
  ) {
    this.kind = kind;
    this.n = n;
  }
  toString(): string {
    return `<${this.kind}#${this.n}>`;
  }
  toJSON(): string {
    return this.toString();
  }
}

/** A string whose bytes are not valid UTF-8 (or any bytes): sent as they are. */
export class RawBytes {
  readonly prefix: string;
  readonly hex: string;
  constructor(
    prefix: string,
    hex: string,
  ) {
    this.prefix = prefix;
    this.hex = hex;
  }
  bytes(): Buffer {
    return Buffer.concat([Buffer.from(this.prefix, 'utf8'), Buffer.from(this.hex, 'hex')]);
  }
  toString(): string {
    return `<bytes ${JSON.stringify(this.prefix)}+0x${this.hex}>`;
  }
  toJSON(): string {
    return this.toString();
  }
}

/** Nested arrays or objects `depth` levels deep, around `leaf`, built when sent. */
export class Deep {
  readonly depth: number;
  readonly shape: 'array' | 'object';
  readonly width: number;
  constructor(
    depth: number,
    shape: 'array' | 'object',
    width = 1,
  ) {
    this.depth = depth;
    this.shape = shape;
    this.width = width;
  }
  toString(): string {
    return `<${this.shape} nested ${this.depth} deep${this.width > 1 ? `, ${this.width} wide` : ''}>`;
  }
  toJSON(): string {
    return this.toString();
  }
}

/** A long string of `length` copies of `unit`, built when sent. */
export class Huge {
  readonly length: number;
  readonly unit: string;
  constructor(
    length: number,
    unit: string,
  ) {
    this.length = length;
    this.unit = unit;
  }
  toString(): string {
    return `<${JSON.stringify(this.unit)} x ${this.length}>`;
  }
  toJSON(): string {
    return this.toString();
  }
  text(): string {
    return this.unit.repeat(this.length);
  }
}

/** Object-prototype member names: as keys they must never reach `obj[key]` lookups unguarded. */
export const prototypeNames = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__', 'toLocaleString', 'propertyIsEnumerable'] as const;

/** Strings that have broken parsers, SQL, renderers and PostgreSQL's text type before. */
export const oddStrings = [
  '',
  ' ',
  '\u0000',
  'nul\u0000inside',
  '\u202Eevil\u202C',
  '\u200F\u05E9\u05DC\u05D5\u05DD',
  '\uD800',
  'a\uDC00b',
  '\uD83D\uDE00',
  '\uFEFFbom',
  '\uFFFF\uFFFE',
  'e\u0301\u0301\u0301\u0301',
  '\u00A0\u2003\u3000',
  '\u0085next line',
  'line\r\nbreak',
  '\t',
  "' or 1=1 --",
  "'; select pg_sleep(3); --",
  '%',
  '%00',
  '%FF%FE',
  '\\',
  '"',
  '${x}',
  '{{x}}',
  '<script>alert(1)</script>',
  '[](javascript:alert(1))',
  '../../etc/passwd',
  'null',
  'undefined',
  'true',
  'NaN',
  '-0',
  '1e999',
  '99999999999999999999999',
  '0x10',
  '_',
  '*',
  ',,,',
  ':',
  'metadata.',
  'a.b.c.d.e.f.g.h.i.j.k.l',
] as const;

export type JsonLike = null | boolean | number | string | IdRef | RawBytes | Deep | Huge | JsonLike[] | { [key: string]: JsonLike };

/** An object with a null prototype, so that `__proto__` and friends are ordinary own keys. */
export function plainObject(entries: Iterable<readonly [string, JsonLike]>): { [key: string]: JsonLike } {
  const result = Object.create(null) as { [key: string]: JsonLike };
  for (const [key, value] of entries) result[key] = value;
  return result;
}
