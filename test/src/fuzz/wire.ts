import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import type { BodySpec, FuzzCase, PathArg } from './cases.ts';
import type { RawRequest } from './client.ts';
import type { Operation } from './operations.ts';
import { Deep, Huge, IdRef, type JsonLike, prototypeNames, RawBytes } from './values.ts';
import { pairKind, paramKind, type World } from './world.ts';

/** What a built request contains that the checks and the known findings care about. */
export type Features = {
  /** A path parameter that is not a UUID (must be 404). */
  nonUuidPath: boolean;
  /** Credentials that authenticate nobody (must be 401 on authenticated routes). */
  badCredentials: boolean;
  readOnly: boolean;
  /** The deepest nesting sent in a body. */
  depth: number;
  /** A JSON body that is not valid UTF-8. */
  invalidUtf8Json: boolean;
  /** A form or multipart field value whose bytes are not valid UTF-8. */
  invalidUtf8Field: 'form' | 'multipart' | undefined;
  /** A form or multipart field named like an Object.prototype member. */
  prototypeFormField: boolean;
  forgedToken: boolean;
  contentEncoding: string;
  /** Bytes of the request line and headers. */
  headBytes: number;
  idempotencyKey: boolean;
  ifMatch: boolean;
};

export type Built = { readonly request: RawRequest; readonly features: Features };

const unreserved = /[A-Za-z0-9\-._~]/;

/** Percent-encodes bytes (lone surrogates become U+FFFD, as UTF-8 must have it). */
export function percentEncode(value: string | Buffer): string {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  let out = '';
  for (const byte of bytes) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && unreserved.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

type Resolver = (ref: IdRef) => string;

/** JSON text of a value, as bytes: references resolved, raw bytes kept raw, big payloads built. */
function jsonBytes(value: JsonLike, resolve: Resolver, features: Features): Buffer {
  const out: (string | Buffer)[] = [];
  const write = (v: JsonLike, depth: number): void => {
    features.depth = Math.max(features.depth, depth);
    if (v instanceof IdRef) out.push(JSON.stringify(resolve(v)));
    else if (v instanceof RawBytes) out.push('"', v.bytes(), '"');
    else if (v instanceof Huge) out.push(JSON.stringify(v.text()));
    else if (v instanceof Deep) {
      features.depth = Math.max(features.depth, depth + v.depth);
      const leaf = v.width > 1 ? Array.from({ length: v.width }, (_, i) => String(i % 10)).join(',') : '1';
      out.push(v.shape === 'array' ? `${'['.repeat(v.depth)}${leaf}${']'.repeat(v.depth)}` : `${'{"a":'.repeat(v.depth)}${leaf}${'}'.repeat(v.depth)}`);
    } else if (Array.isArray(v)) {
      out.push('[');
      v.forEach((item, i) => {
        if (i > 0) out.push(',');
        write(item, depth + 1);
      });
      out.push(']');
    } else if (v !== null && typeof v === 'object') {
      out.push('{');
      Object.keys(v).forEach((key, i) => {
        if (i > 0) out.push(',');
        out.push(JSON.stringify(key), ':');
        write(v[key] ?? null, depth + 1);
      });
      out.push('}');
    } else out.push(JSON.stringify(v) ?? 'null');
  };
  write(value, 1);
  return Buffer.concat(out.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part)));
}

/** One form field's value as bytes. */
function fieldBytes(v: JsonLike, resolve: Resolver, features: Features): Buffer {
  if (v === null) return Buffer.alloc(0);
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (typeof v === 'number' || typeof v === 'boolean') return Buffer.from(String(v));
  if (v instanceof IdRef) return Buffer.from(resolve(v));
  if (v instanceof RawBytes) return v.bytes();
  if (v instanceof Huge) return Buffer.from(v.text(), 'utf8');
  return jsonBytes(v, resolve, features);
}

/** A top-level value as form fields: lists repeat their name, objects travel as JSON text. */
function formFields(value: JsonLike, resolve: Resolver, features: Features): [string, Buffer][] {
  if (value === null || typeof value !== 'object' || value instanceof IdRef || value instanceof RawBytes || value instanceof Huge || value instanceof Deep || Array.isArray(value)) {
    return [[fieldBytes(value, resolve, features).toString('latin1'), Buffer.alloc(0)]];
  }
  const fields: [string, Buffer][] = [];
  for (const key of Object.keys(value)) {
    const v = value[key] ?? null;
    if (Array.isArray(v)) {
      if (v.length === 0) fields.push([key, Buffer.alloc(0)]);
      for (const item of v) fields.push([key, fieldBytes(item, resolve, features)]);
    } else fields.push([key, fieldBytes(v, resolve, features)]);
  }
  return fields;
}

const boundary = '----cairn-fuzz-7MA4YWxkTrZu0gW';

function multipart(fields: readonly (readonly [string, Buffer])[], fileField?: string): Buffer {
  const parts: Buffer[] = [];
  const quote = (name: string) => name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  for (const [name, value] of fields) {
    const file = name === fileField ? '; filename="data.bin"\r\nContent-Type: application/octet-stream' : '';
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"${file}\r\n\r\n`, 'utf8'), value, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

const urlencoded = (fields: readonly (readonly [string, Buffer])[]) => Buffer.from(fields.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&'));

function brokenMultipart(which: string): { body: Buffer; type: string } {
  const type = `multipart/form-data; boundary=${boundary}`;
  const part = (head: string, value: string) => `--${boundary}\r\n${head}\r\n\r\n${value}\r\n`;
  switch (which) {
    case 'no-boundary':
      return { body: Buffer.from(part('Content-Disposition: form-data; name="title"', 'x')), type: 'multipart/form-data' };
    case 'wrong-boundary':
      return { body: Buffer.from(`--other\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--other--\r\n`), type };
    case 'unterminated':
      return { body: Buffer.from(part('Content-Disposition: form-data; name="title"', 'x')), type };
    case 'no-name':
      return { body: Buffer.from(`${part('Content-Disposition: form-data', 'x')}--${boundary}--\r\n`), type };
    case 'file':
      return { body: multipart([['title', Buffer.from('t')], ['content', Buffer.from('file bytes')]], 'content'), type };
    case 'many-files':
      return { body: multipart(Array.from({ length: 20 }, (_, i) => [`f${i}`, Buffer.from('x')] as const), 'f0'), type };
    default:
      return { body: Buffer.from(`${part('Content-Disposition: form-data; name="title"\r\nBroken header line', 'x')}--${boundary}--\r\n`), type };
  }
}

function noteInvalidUtf8(fields: readonly (readonly [string, Buffer])[], encoding: 'form' | 'multipart', features: Features): void {
  // Names always go out as UTF-8 (lone surrogates become U+FFFD); values are raw bytes.
  if (fields.some(([, value]) => !isUtf8(value))) features.invalidUtf8Field = encoding;
}

function encodeBody(spec: BodySpec, resolve: Resolver, features: Features): { body?: Buffer; type?: string | null } {
  switch (spec.t) {
    case 'none':
      return {};
    case 'value':
      if (spec.encoding === 'json') {
        const body = jsonBytes(spec.value, resolve, features);
        features.invalidUtf8Json = !isUtf8(body);
        return { body, type: 'application/json' };
      }
      {
        const fields = formFields(spec.value, resolve, features);
        if (fields.some(([name]) => (prototypeNames as readonly string[]).includes(name))) features.prototypeFormField = true;
        noteInvalidUtf8(fields, spec.encoding, features);
        return spec.encoding === 'form' ? { body: urlencoded(fields), type: 'application/x-www-form-urlencoded' } : { body: multipart(fields), type: `multipart/form-data; boundary=${boundary}` };
      }
    case 'text':
      return { body: Buffer.from(spec.text, 'utf8'), type: spec.contentType };
    case 'fields': {
      const fields = spec.fields.map(([name, value]) => [name, fieldBytes(value, resolve, features)] as const);
      noteInvalidUtf8(fields, spec.encoding, features);
      if (spec.fields.some(([name]) => (prototypeNames as readonly string[]).includes(name))) features.prototypeFormField = true;
      return spec.encoding === 'form' ? { body: urlencoded(fields), type: 'application/x-www-form-urlencoded' } : { body: multipart(fields), type: `multipart/form-data; boundary=${boundary}` };
    }
    case 'formText':
      return { body: Buffer.from(spec.text, 'utf8'), type: 'application/x-www-form-urlencoded' };
    case 'manyFields': {
      const fields = Array.from({ length: spec.count }, (_, i) => [`f${i}`, Buffer.from('1')] as const);
      return spec.encoding === 'form' ? { body: urlencoded(fields), type: 'application/x-www-form-urlencoded' } : { body: multipart(fields), type: `multipart/form-data; boundary=${boundary}` };
    }
    case 'multipartRaw': {
      const { body, type } = brokenMultipart(spec.which);
      return { body, type };
    }
  }
}

function compress(body: Buffer, encoding: FuzzCase['contentEncoding']): { body: Buffer; header?: string } {
  switch (encoding) {
    case 'identity':
      return { body };
    case 'gzip':
      return { body: zlib.gzipSync(body), header: 'gzip' };
    case 'gzip-twice':
      return { body: zlib.gzipSync(zlib.gzipSync(body)), header: 'gzip, gzip' };
    case 'deflate':
      return { body: zlib.deflateSync(body), header: 'deflate' };
    case 'br':
      return { body: zlib.brotliCompressSync(body), header: 'br' };
    case 'zstd':
      return { body: zlib.zstdCompressSync(body), header: 'zstd' };
    case 'bad-gzip':
      return { body: Buffer.from('x'), header: 'gzip' };
    case 'bad-deflate':
      return { body: Buffer.concat([zlib.deflateSync(body).subarray(0, 8), Buffer.from('garbage')]), header: 'deflate' };
    case 'bad-br':
      return { body: Buffer.from('not brotli at all'), header: 'br' };
    case 'bad-zstd':
      return { body: Buffer.from('x'), header: 'zstd' };
    case 'unknown':
      return { body, header: 'compress' };
  }
}

const garbageTokens = ['', 'x', 'x.y.z', 'a'.repeat(5000), 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'null', 'Bearer', '../../', "' or 1=1 --"];

/** Turns a generated case into the exact request, with the world's ids of this moment. */
export function build(op: Operation, c: FuzzCase, world: World): Built {
  const features: Features = {
    nonUuidPath: false,
    badCredentials: false,
    readOnly: false,
    depth: 0,
    invalidUtf8Json: false,
    invalidUtf8Field: undefined,
    prototypeFormField: false,
    forgedToken: false,
    contentEncoding: c.contentEncoding,
    headBytes: 0,
    idempotencyKey: c.idempotency !== 'none',
    ifMatch: c.ifMatch,
  };
  const resolve: Resolver = (ref) => world.id(ref.kind, ref.n);

  // Path: the real ids of the world, a parent and child that belong together when asked.
  const pair = op.params.length === 2 && c.paired ? pairKind(op.path) : undefined;
  const pairEntity = pair ? world.pick(pair, c.n) : undefined;
  const real = op.params.map((param, i) => {
    if (pairEntity) return i === 0 ? (pairEntity.parent ?? pairEntity.id) : pairEntity.id;
    return world.id(paramKind(op.path, param), c.n + i * 7);
  });
  const arg = (a: PathArg | undefined, i: number): string => {
    switch (a?.t) {
      case 'foreign':
        return world.id(a.ref.kind, a.ref.n);
      case 'random':
        return a.uuid;
      case 'upper':
        return (real[i] ?? randomUUID()).toUpperCase();
      case 'raw':
        features.nonUuidPath = true;
        return a.text;
      default:
        return real[i] ?? randomUUID();
    }
  };
  let i = 0;
  const path = op.path.replace(/\{(\w+)\}/g, () => {
    const index = i++;
    return percentEncode(arg(c.pathArgs[index], index));
  });

  const query = c.query
    .map((part) => {
      const key = percentEncode(part.key);
      if (part.value === null) return key;
      const value = part.value instanceof IdRef ? resolve(part.value) : part.value;
      return `${key}=${part.raw ? value : percentEncode(value)}`;
    })
    .join('&');

  const headers: Record<string, string> = { accept: 'application/json' };
  const { admin, plain, readOnly } = world.callers;
  switch (c.credential) {
    case 'admin':
      headers['authorization'] = `Bearer ${admin.token}`;
      break;
    case 'plain':
      headers['authorization'] = `Bearer ${plain.token}`;
      break;
    case 'readOnly':
      headers['authorization'] = `Bearer ${readOnly.token}`;
      features.readOnly = true;
      break;
    case 'garbage':
      headers['authorization'] = `Bearer ${garbageTokens[c.n % garbageTokens.length]}`;
      features.badCredentials = true;
      break;
    case 'altered': {
      const token = admin.token;
      const last = token.at(-2) === 'A' ? 'B' : 'A';
      headers['authorization'] = `Bearer ${token.slice(0, -2)}${last}${token.at(-1) ?? ''}`;
      features.badCredentials = true;
      break;
    }
    case 'basic':
      headers['authorization'] = 'Basic YWRtaW46YWRtaW4=';
      features.badCredentials = true;
      break;
    case 'cookie':
      headers['cookie'] = `cairn_session=${'f'.repeat(43)}; __Host-cairn_session=forged`;
      features.badCredentials = true;
      break;
    case 'none':
      features.badCredentials = true;
      break;
  }
  switch (c.consistency) {
    case 'real':
      headers['x-consistency-token'] = world.id('consistencyToken', c.n);
      break;
    case 'garbage':
      headers['x-consistency-token'] = ['x', '', '1.1.1', '-1.-1', 'zzzzzzzzzzzzzzz.1', '%00'][c.n % 6] ?? 'x';
      break;
    case 'forged':
      headers['x-consistency-token'] = 'zzzzzzzzzz.1';
      features.forgedToken = true;
      break;
    default:
      break;
  }

  if (c.idempotency === 'pool') headers['idempotency-key'] = `fuzz-key-${c.n % 4}`;
  if (c.idempotency === 'bad') headers['idempotency-key'] = ['', ' ', 'a b', 'k'.repeat(256), 'tab\there', '"quoted"'][c.n % 6] ?? '';
  if (c.ifMatch) headers['if-match'] = ['"stale"', 'W/"x"', '*', '', 'zzz', '"a", "b"'][c.n % 6] ?? '';

  const { body, type } = encodeBody(c.body, resolve, features);
  let sent = body;
  if (body) {
    if (type) headers['content-type'] = type;
    const compressed = compress(body, c.contentEncoding);
    sent = compressed.body;
    if (compressed.header) headers['content-encoding'] = compressed.header;
  }
  const target = query ? `${path}?${query}` : path;
  features.headBytes = target.length + Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  return {
    request: { method: op.method.toUpperCase(), path: target, headers, ...(sent ? { body: sent } : {}) },
    features,
  };
}

/** A request as a reader wants it in a report: the credential by name, the body cut short. */
export function describeRequest(request: RawRequest, credential: string): string {
  const headers = Object.entries(request.headers)
    .filter(([k]) => k !== 'accept')
    .map(([k, v]) => (k === 'authorization' && credential !== 'garbage' && credential !== 'basic' ? `${k}: <${credential} token>` : `${k}: ${v.length > 120 ? `${v.slice(0, 120)}…(${v.length})` : v}`));
  let body = '';
  if (request.body) {
    const shown = request.body.subarray(0, 400);
    const text = request.headers['content-encoding'] ? `<${request.headers['content-encoding']} ${request.body.length} bytes>` : JSON.stringify(shown.toString('latin1'));
    body = `\n  body (${request.body.length} bytes): ${text}${request.body.length > 400 && !request.headers['content-encoding'] ? '…' : ''}`;
  }
  const path = request.path.length > 300 ? `${request.path.slice(0, 300)}…(${request.path.length})` : request.path;
  return `${request.method} ${path}\n  ${headers.join('\n  ')}${body}`;
}
